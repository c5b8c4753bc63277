import type { Context, Hono } from "hono";
import { z } from "zod";
import { KeelError } from "../core/index.js";
import { problemsFromZodIssues } from "../runtime/index.js";
import type { Caller } from "./auth/caller.js";
import type { RouteCapability } from "./auth/capabilities.js";

/** HTTP methods the API uses. */
export type Method = "get" | "post" | "patch" | "put" | "delete";

/** What a route declares: where, who may call it, and the shape of what it takes and gives. */
export interface RouteDef<B extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType> {
  method: Method;
  /** OpenAPI style: `/threads/{thread_id}`. */
  path: string;
  /** The capability a caller needs; `public` for the probes and the OpenAPI document. */
  capability: RouteCapability | "public";
  summary: string;
  tag: string;
  body?: B;
  query?: Q;
  /** The JSON answer's schema (omitted for SSE and HTML routes). */
  response?: z.ZodType;
  /** `text/event-stream` answers. */
  sse?: boolean;
}

/** What a handler receives besides Hono's context. */
export interface RouteInput<B, Q> {
  body: B;
  query: Q;
  params: Record<string, string>;
  caller: Caller | null;
}

export type RouteHandler<B, Q> = (
  c: Context,
  input: RouteInput<B, Q>,
) => Response | Promise<Response>;

/**
 * An id in a path: plain characters only, never `.` or `..`, so an id can never name a file or
 * climb a path wherever it ends up.
 */
export const PathId = z
  .string()
  .regex(
    /^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,199}$/,
    "an id of letters, digits, _ . : - (not starting with . or -)",
  );

/**
 * Registers each route on Hono with its checks in order (caller, capability, params, query,
 * body) and keeps the declarations for the OpenAPI document.
 */
export class RouteTable {
  readonly routes: RouteDef[] = [];

  constructor(
    private readonly app: Hono,
    private readonly authorize: (c: Context, def: RouteDef) => Promise<Caller | null>,
  ) {}

  add<B extends z.ZodType, Q extends z.ZodType>(
    def: RouteDef<B, Q>,
    handler: RouteHandler<z.output<B>, z.output<Q>>,
  ): void {
    this.routes.push(def as RouteDef);
    const honoPath = def.path.replace(/\{([a-z_]+)\}/g, ":$1");
    this.app.on(def.method.toUpperCase(), honoPath, async (c) => {
      const caller = await this.authorize(c, def as RouteDef);
      const params = c.req.param() as Record<string, string>;
      for (const [name, value] of Object.entries(params)) {
        if (!PathId.safeParse(value).success) {
          throw new KeelError("INVALID_ARGUMENT", `Path parameter ${name} is not a valid id.`, {
            details: { parameter: name },
            hint: "Ids are letters, digits, _ . : - and never . or ..",
          });
        }
      }
      const query = def.query ? validate(def.query, c.req.query(), "query") : undefined;
      let body: unknown;
      if (def.body) {
        const text = await c.req.text();
        let raw: unknown = {};
        if (text.trim() !== "") {
          try {
            raw = JSON.parse(text);
          } catch {
            throw new KeelError("INVALID_ARGUMENT", "The request body is not valid JSON.", {
              hint: "Send a JSON object with Content-Type: application/json.",
            });
          }
        }
        body = validate(def.body, raw ?? {}, "body");
      }
      return handler(c, {
        body: body as z.output<B>,
        query: query as z.output<Q>,
        params,
        caller,
      });
    });
  }
}

function validate(schema: z.ZodType, value: unknown, where: string): unknown {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = problemsFromZodIssues(parsed.error.issues, value);
  throw new KeelError(
    "VALIDATION_FAILED",
    `The request ${where} is invalid: ${problems.map((p) => `${p.path} ${p.message}`).join("; ")}`,
    { details: { where, problems } },
  );
}
