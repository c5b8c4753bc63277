export { eventFacts, intentOf } from "./event-facts.js";
export { type RouteResult, Router } from "./router.js";
export {
  FastPath,
  parseRoutingConfig,
  RouteRule,
  RoutingConfig,
  type RoutingConfigInput,
  validateRoutingConfig,
} from "./routing-config.js";
