import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import { loadTokenCounter, type TokenCounter } from "./tokens.js";

/** Counts tokens of a node's frontmatter and body, now or on a worker thread. */
export interface TokenPool {
  /** Resolves to [frontmatter tokens, body tokens]. */
  count(frontmatter: string, body: string): Promise<readonly [number, number]>;
  /** Waits for every count asked for, then stops the worker (if any). */
  close(): Promise<void>;
  /** Where counts are made: `worker-failed` once a failed worker handed its work back inline. */
  where(): "inline" | "worker" | "worker-failed";
}

/** Below this many files to count, a worker costs more to start than it saves. */
export const WORKER_THRESHOLD = 400;
const BATCH = 64;

// The worker is plain CommonJS evaluated from this string (no file to find next to the compiled
// or the TypeScript module); it requires the tokenizer by the absolute path resolved here.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { countTokens } = require(workerData.tokenizer);
parentPort.on("message", ({ id, texts }) => {
  parentPort.postMessage({ id, counts: texts.map((t) => (t.length === 0 ? 0 : countTokens(t))) });
});
`;

/**
 * A token counter for `files` files. With many files on a machine with more than one core,
 * tokenizing (most of a cold scan's CPU) runs on one worker thread while the scan reads,
 * parses and detects on the main thread; the counts are the same (one tokenizer, cl100k_base).
 * Otherwise counts are made inline.
 *
 * @example
 * const pool = await tokenPool(files.length);
 * const [fm, body] = await pool.count(split.frontmatterRaw, split.body);
 * await pool.close();
 */
export async function tokenPool(files: number, threshold = WORKER_THRESHOLD): Promise<TokenPool> {
  if (files < threshold || availableParallelism() < 2) return inlinePool(await loadTokenCounter());
  const tokenizer = createRequire(import.meta.url).resolve("gpt-tokenizer/encoding/cl100k_base");
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { tokenizer } });
  // A scan that throws half-way never reaches close(): the worker must not keep the process up.
  worker.unref();
  type Pair = readonly [number, number];
  interface Pending {
    readonly texts: string[];
    readonly settle: ((pair: Pair) => void)[];
  }
  const waiting = new Map<number, Pending>();
  // Should the worker fail, what it was asked (and everything after) is counted inline.
  let fallback: TokenCounter | null = null;
  const countInline = async (batch: Pending) => {
    fallback ??= await loadTokenCounter();
    const count = fallback;
    batch.settle.forEach((resolve, i) => {
      resolve([count(batch.texts[2 * i] ?? ""), count(batch.texts[2 * i + 1] ?? "")]);
    });
  };
  worker.on("message", ({ id, counts }: { id: number; counts: number[] }) => {
    const batch = waiting.get(id);
    waiting.delete(id);
    batch?.settle.forEach((resolve, i) => {
      resolve([counts[2 * i] ?? 0, counts[2 * i + 1] ?? 0]);
    });
  });
  let failed = false;
  const fail = () => {
    failed = true;
    for (const batch of waiting.values()) void countInline(batch);
    waiting.clear();
  };
  worker.once("error", fail);
  let nextId = 0;
  let current: Pending = { texts: [], settle: [] };
  const flush = () => {
    if (current.settle.length === 0) return;
    const batch = current;
    current = { texts: [], settle: [] };
    if (failed) {
      void countInline(batch);
      return;
    }
    const id = nextId++;
    waiting.set(id, batch);
    worker.postMessage({ id, texts: batch.texts });
  };
  const all: Promise<Pair>[] = [];
  return {
    where: () => (failed ? "worker-failed" : "worker"),
    count(frontmatter, body) {
      const result = new Promise<Pair>((resolve) => {
        current.texts.push(frontmatter, body);
        current.settle.push(resolve);
      });
      if (current.settle.length >= BATCH) flush();
      all.push(result);
      return result;
    },
    async close() {
      flush();
      // Held while the last counts come back (unreferenced, the process could end first).
      worker.ref();
      try {
        await Promise.all(all);
      } finally {
        await worker.terminate();
      }
    },
  };
}

function inlinePool(countTokens: TokenCounter): TokenPool {
  return {
    count: (frontmatter, body) =>
      Promise.resolve([countTokens(frontmatter), countTokens(body)] as const),
    close: () => Promise.resolve(),
    where: () => "inline",
  };
}
