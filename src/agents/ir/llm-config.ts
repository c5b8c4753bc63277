import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { z } from "zod";
import { KeelError } from "../../core/index.js";

/**
 * The `config` of an IR node of kind `llm` (snake_case, as the IR's wire format). The endpoint's
 * key is never in the document: `api_key_env` names the environment variable that holds it.
 */
export const LlmNodeConfig = z.strictObject({
  /** The OpenAI-compatible endpoint (`…/v1`); or `base_url_env` names a variable holding it. */
  base_url: z.string().url().optional(),
  base_url_env: z.string().default("KEEL_OPENAI_BASE_URL"),
  model: z.string().min(1),
  temperature: z.number().min(0).max(2).optional(),
  /** The environment variable holding the API key (a local server may need none). */
  api_key_env: z.string().optional(),
  /** The system prompt. */
  system: z.string().optional(),
  /** The state slots whose values make the user's message (strings as they are, others as JSON). */
  input: z.union([z.string(), z.array(z.string()).min(1)]),
  /** Registry ids of the document's tools the model may call (each a ledgered `tool_call`). */
  tools: z.array(z.string()).default([]),
  max_tool_rounds: z.int().min(1).max(50).default(8),
  /**
   * Where the answer goes: a slot for the text, or slots with a JSON Schema each — the model
   * answers them as structured output.
   */
  output: z.union([z.string(), z.record(z.string(), z.record(z.string(), z.unknown()))]),
  /** Retries of a 429 or 5xx answer (a 429's `retry-after` is waited, up to 60 s). */
  max_retries: z.int().min(0).max(10).default(2),
  timeout_ms: z.int().positive().default(120_000),
});
export type LlmNodeConfig = z.infer<typeof LlmNodeConfig>;

/** Parses a node's config; throws `IR_INVALID` with every problem (the compile reports it at the node). */
export function parseLlmConfig(nodeId: string, config: unknown): LlmNodeConfig {
  const parsed = LlmNodeConfig.safeParse(config);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(
    (issue) => `${issue.path.join(".") || "(config)"}: ${issue.message}`,
  );
  const secret = Object.keys((config as Record<string, unknown>) ?? {}).find((k) =>
    /api_?key$/i.test(k),
  );
  throw new KeelError("IR_INVALID", `the llm config is invalid: ${problems.join("; ")}`, {
    details: { node: nodeId, problems },
    hint: secret
      ? `Never put a key in a document: name the environment variable holding it in "api_key_env".`
      : "Give at least model, input and output (docs/agents.md: the llm node).",
  });
}

/** The endpoint URL of a node: `base_url`, else the variable `base_url_env` names. */
export function endpointOf(nodeId: string, config: LlmNodeConfig, env: NodeJS.ProcessEnv): string {
  const url = config.base_url ?? env[config.base_url_env];
  if (url) return url;
  throw new KeelError(
    "INVALID_ARGUMENT",
    `Node "${nodeId}" has no model endpoint: no base_url, and ${config.base_url_env} is not set.`,
    {
      details: { node: nodeId, variable: config.base_url_env },
      hint: `Set ${config.base_url_env} to an OpenAI-compatible server (e.g. http://127.0.0.1:8080/v1 for llama.cpp, http://127.0.0.1:11434/v1 for Ollama).`,
    },
  );
}

/** The API key from the variable the document names (a placeholder when it names none). */
export function apiKeyOf(nodeId: string, config: LlmNodeConfig, env: NodeJS.ProcessEnv): string {
  if (config.api_key_env === undefined) return "not-needed";
  const key = env[config.api_key_env];
  if (key) return key;
  throw new KeelError(
    "INVALID_ARGUMENT",
    `Node "${nodeId}" takes its API key from ${config.api_key_env}, which is not set.`,
    {
      details: { node: nodeId, variable: config.api_key_env },
      hint: `Export ${config.api_key_env}=<key>, or remove api_key_env for a server that needs no key.`,
    },
  );
}

/** How an `llm` node gets its chat model (tests and applications may give their own). */
export type ChatModelFactory = (options: {
  baseURL: string;
  model: string;
  apiKey: string;
  temperature?: number;
  timeoutMs: number;
}) => BaseChatModel | Promise<BaseChatModel>;

export interface LlmNodeKindOptions {
  /** Where `base_url_env` and `api_key_env` are read (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** Default: `@langchain/openai`'s ChatOpenAI, its own retries off (the node retries). */
  chatModel?: ChatModelFactory;
}
