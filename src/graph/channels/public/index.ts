export { BaseChannel, isBaseChannel } from "./base-channel.js";
export { BinaryOperatorAggregate } from "./binary-operator.js";
export {
  DeltaChannel,
  type DeltaChannelOptions,
  type DeltaReducer,
  DeltaSnapshot,
  type DeltaWrite,
  exitDeltaTaskId,
  isDeltaSnapshot,
} from "./delta.js";
export {
  channelsFromCheckpoint,
  createCheckpoint,
  deltaChannelsToSnapshot,
  deltaMaxSuperstepsSinceSnapshot,
} from "./delta-storage.js";
export {
  AnyValue,
  EphemeralValue,
  LastValue,
  UntrackedValueChannel,
  type UntrackedValueOptions,
} from "./last-value.js";
export { Topic, type TopicOptions } from "./topic.js";
