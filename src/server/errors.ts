import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { httpStatusFor, KeelError, toKeelError } from "../core/index.js";

/** The body of every error response: the CLI's `--json` error shape. */
export interface ErrorBody {
  ok: false;
  error: { code: string; message: string; details: Record<string, unknown> };
}

/**
 * Answers a thrown value as `{"ok":false,"error":{code,message,details}}` with the HTTP status of
 * its code. Unknown throws become INTERNAL once, here, and their message is not leaked: a stack or
 * a driver's text says nothing an API client can act on.
 */
export function errorResponse(c: Context, thrown: unknown): Response {
  const error = toKeelError(thrown);
  const status = httpStatusFor(error.code) as ContentfulStatusCode;
  const body: ErrorBody =
    error.code === "INTERNAL"
      ? {
          ok: false,
          error: {
            code: "INTERNAL",
            message: "Internal server error; see the server log.",
            details: {},
          },
        }
      : error.toJSON();
  return c.json(body, status);
}

/** NOT_FOUND for a route no handler serves. */
export function routeNotFound(method: string, path: string): KeelError {
  return new KeelError("NOT_FOUND", `No route ${method} ${path}.`, {
    hint: "GET /openapi.json lists the routes.",
  });
}
