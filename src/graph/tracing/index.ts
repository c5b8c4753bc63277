export { runInLangChainContext } from "./langchain-context.js";
export { mergeCallbacks } from "./merge-callbacks.js";
export {
  type ChainRun,
  hasCallbacks,
  KEEL_HANDLER,
  RunTrace,
  tracingFromEnv,
  wantsTrace,
} from "./run-trace.js";
export {
  type EventSource,
  type StreamEventsV2Filter,
  type StreamEventsV2Options,
  streamEventsV2,
} from "./stream-events-v2.js";
