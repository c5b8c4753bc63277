export { type DedupeFacts, dedupeKeyFor } from "./dedupe-key.js";
export {
  DEFAULT_DEDUPE_WINDOW_MS,
  type IngestOutcome,
  IngestService,
  type IngestServiceOptions,
} from "./ingest-service.js";
export { type NormalizeDefaults, type NormalizeOptions, normalizeInput } from "./normalize.js";
export type { RawActor, RawCliMessage, RawInput, RawTick, RawWebhook } from "./raw-input.js";
