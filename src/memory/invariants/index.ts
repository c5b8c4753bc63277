export * from "./integrity.js";
export * from "./routing.js";
export * from "./transitions.js";
