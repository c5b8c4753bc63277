/**
 * `keel/server`: the HTTP server of `keel serve` — the LangGraph-Platform-compatible API, Keel's
 * own API, the dashboard. See docs/server.md.
 */

export { type AppOptions, createApp } from "./app.js";
export { Authorizer, SESSION_COOKIE } from "./auth/authorizer.js";
export type { Caller } from "./auth/caller.js";
export {
  type Capability,
  parseCapabilities,
  ROUTE_CAPABILITIES,
  type RouteCapability,
} from "./auth/capabilities.js";
export { type TokenInfo, TokenStore } from "./auth/token-store.js";
export type { ServerContext } from "./context.js";
export { EventBus, type ServerEvent } from "./events.js";
export { type Assistant, loadAssistants, type ServerConfig } from "./langgraph/assistants.js";
export { openApiDocument } from "./openapi.js";
export {
  DEFAULT_HOST,
  DEFAULT_PORT,
  type RunningServer,
  type ServeOptions,
  startServer,
} from "./serve.js";
