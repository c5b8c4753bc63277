export { BaseChannel, isBaseChannel } from "./base-channel.js";
export { BinaryOperatorAggregate } from "./binary-operator.js";
export {
  AnyValue,
  EphemeralValue,
  LastValue,
  UntrackedValueChannel,
  type UntrackedValueOptions,
} from "./last-value.js";
export { Topic, type TopicOptions } from "./topic.js";
