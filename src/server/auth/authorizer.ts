import { randomBytes, timingSafeEqual } from "node:crypto";
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { KeelError } from "../../core/index.js";
import type { AuditWriter } from "../../runtime/index.js";
import type { RouteDef } from "../route.js";
import type { Caller } from "./caller.js";
import { grants } from "./capabilities.js";
import { TOKEN_PREFIX, type TokenStore } from "./token-store.js";

/** The dashboard's session cookie. */
export const SESSION_COOKIE = "keel_session";

/** Capabilities whose every granted use is audited (reads and runs are not: see docs/server.md). */
const AUDITED_GRANTS = new Set(["approve", "ledger", "jobs", "memory", "admin"]);

/**
 * Decides who may call a route: a bearer token (`Authorization: Bearer …` or the LangGraph SDK's
 * `x-api-key`), or a dashboard session cookie, whose state-changing requests must also carry the
 * session's CSRF token. No caller → UNAUTHENTICATED (401); a caller without the route's
 * capability → CAPABILITY_MISSING (403). Every refusal, and every granted use of a governing
 * capability, is written to the audit log on the server's trace.
 */
export class Authorizer {
  private readonly sessions = new Map<string, Caller>();
  /** The launch key: an admin secret that lives as long as this process (printed at start). */
  readonly launchKey = `${TOKEN_PREFIX}${randomBytes(24).toString("base64url")}`;

  constructor(
    private readonly tokens: TokenStore,
    private readonly audit: AuditWriter,
    readonly traceId: string,
  ) {}

  /** The caller of a request from its credentials, or null when it has none that is valid. */
  async identify(c: Context): Promise<Caller | null> {
    const header = c.req.header("authorization");
    const bearer = header?.toLowerCase().startsWith("bearer ") ? header.slice(7).trim() : undefined;
    const secret = bearer ?? c.req.header("x-api-key")?.trim();
    if (secret) return this.fromSecret(secret);
    const session = getCookie(c, SESSION_COOKIE);
    return session ? (this.sessions.get(session) ?? null) : null;
  }

  /** A caller from a secret: the launch key or a live stored token. */
  async fromSecret(secret: string): Promise<Caller | null> {
    if (safeEqual(secret, this.launchKey)) {
      return { kind: "launch", tokenId: "launch", name: "launch key", capabilities: ["admin"] };
    }
    const token = await this.tokens.verify(secret);
    return (
      token && {
        kind: "token",
        tokenId: token.id,
        name: token.name,
        capabilities: token.capabilities,
      }
    );
  }

  /** Opens a dashboard session for a caller; returns the cookie value. */
  openSession(caller: Caller): string {
    const id = randomBytes(32).toString("base64url");
    this.sessions.set(id, {
      ...caller,
      kind: "session",
      csrf: randomBytes(24).toString("base64url"),
    });
    return id;
  }

  closeSession(id: string | undefined): void {
    if (id) this.sessions.delete(id);
  }

  /** The route check the route table runs before each handler. */
  async authorize(c: Context, def: RouteDef): Promise<Caller | null> {
    if (def.capability === "public") return null;
    const caller = await this.identify(c);
    const where = `${def.method.toUpperCase()} ${def.path}`;
    if (!caller) {
      await this.record("access.denied", `${where} refused: no valid token`, "failure", {
        route: where,
      });
      throw new KeelError("UNAUTHENTICATED", "This route needs a token.", {
        details: { route: where },
        hint: "Send Authorization: Bearer <token> (create one with `keel tokens create`).",
      });
    }
    if (!grants(caller.capabilities, def.capability)) {
      await this.record(
        "access.denied",
        `${where} refused to ${caller.name}: lacks ${def.capability}`,
        "failure",
        { route: where, token_id: caller.tokenId, needed: def.capability },
      );
      throw new KeelError(
        "CAPABILITY_MISSING",
        `This route needs the "${def.capability}" capability.`,
        {
          details: { route: where, needed: def.capability, held: caller.capabilities },
          hint: "Use a token that carries it (`keel tokens create --capability …`).",
        },
      );
    }
    if (caller.kind === "session" && def.method !== "get") this.checkCsrf(c, caller);
    if (AUDITED_GRANTS.has(def.capability)) {
      await this.record(
        "access.granted",
        `${where} allowed to ${caller.name} (${def.capability})`,
        "success",
        {
          route: where,
          token_id: caller.tokenId,
        },
      );
    }
    return caller;
  }

  /** A dashboard form must echo its session's CSRF token and come from this origin. */
  checkCsrf(c: Context, caller: Caller, sent = c.req.header("x-csrf-token")): void {
    const origin = c.req.header("origin");
    const host = c.req.header("host");
    const sameOrigin =
      origin === undefined || (host !== undefined && new URL(origin).host === host);
    if (!caller.csrf || !sent || !safeEqual(sent, caller.csrf) || !sameOrigin) {
      void this.record(
        "access.denied",
        `${c.req.method} ${c.req.path} refused: CSRF check failed`,
        "failure",
        {
          route: c.req.path,
        },
      );
      throw new KeelError("CSRF_REJECTED", "The request did not carry this session's CSRF token.", {
        hint: "Reload the dashboard page and submit again.",
      });
    }
  }

  private async record(
    type: string,
    summary: string,
    outcome: "success" | "failure",
    payload: Record<string, unknown>,
  ): Promise<void> {
    await this.audit.write(this.traceId, { stage: "operator", type, summary, outcome, payload });
  }
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
