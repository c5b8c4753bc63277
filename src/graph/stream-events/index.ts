export { EventLog } from "./event-log.js";
export {
  encodeEventStream,
  GraphRunStream,
  type InterruptPayload,
  PROTOCOL_STREAM,
  type ProtocolEvent,
  type StreamableGraph,
  type StreamEventsOptions,
  type StreamTransformer,
  SubgraphRunStream,
  type ToolsEventData,
  type ValuesView,
} from "./run-stream.js";
export { StreamChannel } from "./stream-channel.js";
