import { z } from "zod";
import { KeelError, VERSION } from "../../core/index.js";
import type { ServerContext } from "../context.js";
import type { RouteTable } from "../route.js";

/** `/healthz` (the process answers) and `/readyz` (it can serve: database reachable, started). */
export function healthRoutes(table: RouteTable, ctx: ServerContext): void {
  table.add(
    {
      method: "get",
      path: "/healthz",
      capability: "public",
      summary: "Liveness: the process answers.",
      tag: "health",
      response: z.object({ ok: z.literal(true), version: z.string() }),
    },
    (c) => c.json({ ok: true as const, version: VERSION }),
  );
  table.add(
    {
      method: "get",
      path: "/readyz",
      capability: "public",
      summary: "Readiness: started, not shutting down, and the database answers.",
      tag: "health",
      response: z.object({ ok: z.literal(true), dialect: z.string(), assistants: z.number() }),
    },
    async (c) => {
      if (!ctx.ready()) {
        throw new KeelError("STORE_BUSY", "The server is starting or shutting down.", {
          hint: "Retry in a moment.",
        });
      }
      await ctx.saver.sql.all("SELECT 1 AS one", []);
      return c.json({
        ok: true as const,
        dialect: ctx.store.dialect,
        assistants: ctx.assistants.size,
      });
    },
  );
}
