/** LangGraph.js's low-level Pregel API: `Pregel`, `Channel.subscribeTo` / `Channel.writeTo`. */
export { ChannelWrite, type ChannelWriteEntry, PASSTHROUGH } from "./channel-write.js";
export { Channel, PregelNode, type PregelStep } from "./node.js";
export { Pregel, type PregelOptions, type PregelRunConfig, type PregelSnapshot } from "./pregel.js";
