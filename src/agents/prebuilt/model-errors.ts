import { KeelError } from "../../core/index.js";

/** Network failures a model call can meet before any answer (the endpoint is down or unreachable). */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_SOCKET",
]);

/** The endpoint a chat model (or a binding of one) talks to, when it says. */
export function modelEndpoint(llm: unknown): string | undefined {
  let model = llm as Record<string, unknown> | undefined;
  // A binding (bindTools, withConfig) wraps the model in `bound`.
  for (let depth = 0; depth < 4 && model && "bound" in model; depth += 1)
    model = model.bound as Record<string, unknown> | undefined;
  const config = (model?.clientConfig ?? model?.configuration) as { baseURL?: unknown } | undefined;
  const fromClient = (model?.client as { baseURL?: unknown } | undefined)?.baseURL;
  const url = config?.baseURL ?? fromClient ?? model?.baseUrl ?? model?.baseURL;
  return typeof url === "string" ? url : undefined;
}

function networkCode(error: unknown): string | undefined {
  for (
    let e = error as { code?: unknown; cause?: unknown } | undefined, i = 0;
    e && i < 5;
    i += 1
  ) {
    if (typeof e.code === "string" && NETWORK_CODES.has(e.code)) return e.code;
    e = e.cause as typeof e;
  }
  return undefined;
}

/**
 * A model call's failure, as the caller should read it: an endpoint that is down, unreachable or
 * answering with an HTTP error becomes `MODEL_ENDPOINT_FAILED` naming the URL (the provider's
 * "Connection error." says neither where nor what to do); anything else passes unchanged.
 */
export function modelEndpointError(error: unknown, llm: unknown): unknown {
  if (!(error instanceof Error) || error instanceof KeelError) return error;
  const status = (error as { status?: unknown }).status;
  const code = networkCode(error);
  const connection = /connection/i.test(error.name) || code !== undefined;
  if (!connection && typeof status !== "number") return error;
  const url = modelEndpoint(llm) ?? "(the model's default endpoint)";
  const what = connection
    ? `could not be reached${code ? ` (${code})` : ""}`
    : `answered HTTP ${String(status)}: ${error.message}`;
  return new KeelError("MODEL_ENDPOINT_FAILED", `The model endpoint ${url} ${what}.`, {
    cause: error,
    details: { url, ...(typeof status === "number" ? { status } : {}), ...(code ? { code } : {}) },
    hint: connection
      ? "Start the model server, or point the model at a running one (e.g. KEEL_OPENAI_BASE_URL)."
      : "Check the model name, the key and the server's logs; a 429 is retried by the model's own maxRetries.",
  });
}
