export { type BinaryOperator, BinaryOperatorAggregate } from "./binary-operator.js";
export type { Channel, ChannelFactory } from "./channel.js";
export { JoinBarrier } from "./join-barrier.js";
export { LastValue } from "./last-value.js";
export { type QueuedSend, SendQueue } from "./send-queue.js";
export { TriggerChannel } from "./trigger.js";
