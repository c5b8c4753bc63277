import { KeelError } from "../../core/index.js";

/**
 * Turns texts into vectors for similarity search. Pluggable: none by default (search is then
 * full-text only), an OpenAI-compatible endpoint (`openAiEmbedder`), or any object of this shape.
 */
export interface Embedder {
  /** Recorded with each vector, so vectors of another model are never compared. */
  readonly model: string;
  embed(texts: readonly string[]): Promise<number[][]>;
}

/** Options of `openAiEmbedder`. */
export interface OpenAiEmbedderOptions {
  /** e.g. `https://api.openai.com/v1` or a local server's `/v1`. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Default 30 s. */
  timeoutMs?: number;
}

/**
 * An embedder that calls an OpenAI-compatible `POST {baseUrl}/embeddings`.
 *
 * @example
 * const embedder = openAiEmbedder({ baseUrl: "http://127.0.0.1:11434/v1", model: "nomic-embed-text" });
 */
export function openAiEmbedder(options: OpenAiEmbedderOptions): Embedder {
  const url = `${options.baseUrl.replace(/\/+$/, "")}/embeddings`;
  return {
    model: options.model,
    async embed(texts) {
      if (texts.length === 0) return [];
      let response: Response;
      try {
        response = await fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
          },
          body: JSON.stringify({ model: options.model, input: texts }),
          signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
        });
      } catch (cause) {
        throw embedderFailed(url, String((cause as Error).message), cause);
      }
      if (!response.ok) throw embedderFailed(url, `HTTP ${response.status}`, null);
      const body = (await response.json()) as { data?: { embedding?: unknown; index?: number }[] };
      const data = [...(body.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
      const vectors = data.map((item) => item.embedding);
      if (vectors.length !== texts.length || !vectors.every(isVector)) {
        throw embedderFailed(url, "the answer has no embedding for every input", null);
      }
      return vectors as number[][];
    },
  };
}

function isVector(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((n) => typeof n === "number");
}

function embedderFailed(url: string, reason: string, cause: unknown): KeelError {
  return new KeelError(
    "MEMORY_EMBEDDER_FAILED",
    `The embeddings endpoint ${url} failed: ${reason}.`,
    {
      cause,
      hint: "Check the base URL, model and API key, or run without an embedder (full-text search only).",
    },
  );
}

/**
 * A deterministic embedder with no model: words hashed into a fixed number of dimensions
 * (feature hashing), L2-normalised. Texts sharing words are near. For tests and offline use.
 *
 * @example
 * const [v] = await hashingEmbedder().embed(["use postgres"]);
 */
export function hashingEmbedder(dimensions = 64): Embedder {
  return {
    model: `keel-hashing-${dimensions}`,
    async embed(texts) {
      return texts.map((text) => {
        const vector = new Array<number>(dimensions).fill(0);
        for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
          let h = 2166136261;
          for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
          const index = (h >>> 0) % dimensions;
          vector[index] = (vector[index] ?? 0) + 1;
        }
        const norm = Math.hypot(...vector) || 1;
        return vector.map((v) => v / norm);
      });
    },
  };
}

/** Cosine similarity of two vectors of the same length. */
export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
