export { type CompiledSchema, compileJsonSchema } from "./json-schema-validator.js";
export { assertProfileAllows, profileAllows, TOOL_PROFILES, type ToolProfile } from "./profiles.js";
export { ToolFailure } from "./tool-failure.js";
export {
  type RegisteredTool,
  type ToolCallContext,
  type ToolHandler,
  ToolRegistry,
} from "./tool-registry.js";
