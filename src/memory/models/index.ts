export * from "./content.js";
export * from "./enums.js";
export * from "./event.js";
export { parseWireTime, RationaleStr, StrictStr, TargetStr } from "./primitives.js";
export * from "./requests.js";
export * from "./stream.js";
export * from "./validate.js";
