import { readFileSync } from "node:fs";
import type { Context, Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { KeelError } from "../../core/index.js";
import { SESSION_COOKIE } from "../auth/authorizer.js";
import type { Caller } from "../auth/caller.js";
import type { ServerContext } from "../context.js";
import { PathId, type RouteTable } from "../route.js";
import { renderLogin, renderPage } from "./page.js";

/** The dashboard's static files, read once into memory: only these names are ever served. */
const ASSETS: Record<string, { type: string; body: string }> = {
  "dashboard.js": { type: "text/javascript; charset=utf-8", body: asset("dashboard.js") },
  "dashboard.css": { type: "text/css; charset=utf-8", body: asset("dashboard.css") },
};

function asset(name: string): string {
  return readFileSync(new URL(`./assets/${name}`, import.meta.url), "utf8");
}

/**
 * The dashboard: server-rendered pages (a shell per view) filled by one small client script from
 * the same JSON API, over a session cookie opened from a token or the launch link. Pages and
 * assets are served from memory; state-changing requests need the session's CSRF token.
 */
export function dashboardRoutes(app: Hono, _table: RouteTable, ctx: ServerContext): void {
  const policy =
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
  const html = (c: Context, body: string, status: 200 | 401 = 200) => {
    c.header("Content-Security-Policy", policy);
    c.header("Cache-Control", "no-store");
    return c.html(body, status);
  };
  const session = async (c: Context): Promise<Caller | null> => {
    const id = getCookie(c, SESSION_COOKIE);
    if (!id) return null;
    const caller = await ctx.authorizer.identify(c);
    return caller?.kind === "session" ? caller : null;
  };
  const open = (c: Context, caller: Caller) => {
    const id = ctx.authorizer.openSession(caller);
    setCookie(c, SESSION_COOKIE, id, { httpOnly: true, sameSite: "Strict", path: "/" });
    return c.redirect("/ui/runs", 303);
  };

  app.get("/ui/assets/:name", (c) => {
    const file = ASSETS[c.req.param("name")];
    if (!file) throw new KeelError("NOT_FOUND", "No such asset.");
    c.header("Content-Type", file.type);
    c.header("Cache-Control", "no-cache");
    return c.body(file.body);
  });
  app.get("/login", async (c) => {
    const key = c.req.query("key");
    if (key === undefined) return html(c, renderLogin());
    const caller = await ctx.authorizer.fromSecret(key);
    if (!caller)
      return html(c, renderLogin("That key is not valid (unknown, revoked or expired)."), 401);
    return open(c, caller);
  });
  app.post("/login", async (c) => {
    const form = await c.req.parseBody();
    const token = typeof form.token === "string" ? form.token.trim() : "";
    const caller = token ? await ctx.authorizer.fromSecret(token) : null;
    if (!caller)
      return html(c, renderLogin("That token is not valid (unknown, revoked or expired)."), 401);
    return open(c, caller);
  });
  app.post("/logout", async (c) => {
    const caller = await session(c);
    if (caller) {
      const form = await c.req.parseBody();
      const sent = typeof form._csrf === "string" ? form._csrf : "";
      // The logout form carries the token in its body: a plain form cannot set headers.
      ctx.authorizer.checkCsrf(c, caller, sent);
      ctx.authorizer.closeSession(getCookie(c, SESSION_COOKIE));
    }
    deleteCookie(c, SESSION_COOKIE, { path: "/" });
    return c.redirect("/login", 303);
  });
  app.get("/", (c) => c.redirect("/ui/runs", 302));
  const page = (name: string) => async (c: Context) => {
    const caller = await session(c);
    if (!caller) return c.redirect("/login", 302);
    const runId = c.req.param("run_id");
    if (runId !== undefined && !PathId.safeParse(runId).success) {
      throw new KeelError("INVALID_ARGUMENT", "Path parameter run_id is not a valid id.");
    }
    return html(
      c,
      renderPage(name, { csrf: caller.csrf ?? "", who: caller.name, ...(runId ? { runId } : {}) }),
    );
  };
  app.get("/ui/runs", page("runs"));
  app.get("/ui/runs/:run_id", page("run"));
  app.get("/ui/approvals", page("approvals"));
  app.get("/ui/audit", page("audit"));
  app.get("/ui/ledger", page("ledger"));
  app.get("/ui/jobs", page("jobs"));
  app.get("/ui/catalog", page("catalog"));
  app.get("/ui/memory", page("memory"));
}
