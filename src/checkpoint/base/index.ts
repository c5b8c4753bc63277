/**
 * The checkpointer port: the types, the saver contract every backend implements, the default
 * serializer and the in-memory saver. The graph engine depends on this folder only.
 */

export { BaseCache, type CacheEntry, type CacheFullKey, InMemoryCache } from "./cache.js";
export {
  assertCheckpointFormat,
  CHECKPOINT_FORMAT_VERSION,
  checkpointIdOf,
  copyCheckpoint,
  emptyCheckpoint,
  matchesFilter,
  namespaceOf,
  requireThreadId,
  SPECIAL_WRITE_INDEX,
  writeIndex,
} from "./checkpoint.js";
export { newCheckpointId } from "./checkpoint-id.js";
export { jsonNumber, jsonOf, jsonString, keyJson } from "./json-text.js";
export { MemorySaver } from "./memory-saver.js";
export {
  BaseCheckpointSaver,
  customNextVersion,
  nextChannelVersion,
  ORDERED_SAVES,
  savesInOrder,
} from "./saver.js";
export {
  assertReadableFormat,
  jsonSerde,
  SERDE_FORMAT,
  type Serializer,
  type TypedSerializer,
} from "./serde.js";
export {
  BaseStore,
  InMemoryStore,
  type Item,
  type ListNamespacesOptions,
  type SearchItem,
  type SearchOptions,
} from "./store/index.js";
export { isoNow } from "./timestamp.js";
export type {
  ChannelVersion,
  ChannelVersions,
  Checkpoint,
  CheckpointConfig,
  CheckpointConfigurable,
  CheckpointListOptions,
  CheckpointMetadata,
  CheckpointPendingWrite,
  CheckpointSource,
  CheckpointTuple,
  DeltaChannelHistory,
  Durability,
  PendingWrite,
} from "./types.js";
export { DURABILITY_MODES } from "./types.js";
export { putHexByte, uuidCodes, uuidText } from "./uuid-text.js";
