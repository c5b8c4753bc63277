/**
 * `keel mcp`: the decision memory (and approvals, runs) as an MCP server, over stdio or
 * Streamable HTTP. See docs/memory.md.
 */
export {
  capabilitySet,
  DEFAULT_CAPABILITIES,
  MCP_CAPABILITIES,
  type McpCapability,
} from "./capabilities.js";
export { type McpHttpOptions, serveMcpHttp } from "./http.js";
export { createMemoryMcpServer, type MemoryMcpOptions } from "./tools.js";
