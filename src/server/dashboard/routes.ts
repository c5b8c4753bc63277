import type { Hono } from "hono";
import type { ServerContext } from "../context.js";
import type { RouteTable } from "../route.js";

/** The dashboard (filled in below). */
export function dashboardRoutes(_app: Hono, _table: RouteTable, _ctx: ServerContext): void {}
