export * from "./decay.js";
export * from "./hypotheses.js";
export * from "./scores.js";
export * from "./temporal.js";
export { type TimeInput, toIso, toMs } from "./time.js";
