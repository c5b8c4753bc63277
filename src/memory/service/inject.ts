import type { MemoryContext } from "./context.js";
import { loadRecords } from "./rows.js";
import { search } from "./search.js";
import { recordEvent } from "./writes.js";

/** The marker that opens an injected block (the reference's shape, Keel's name). */
export const CONTEXT_MARKER = "[KEEL KNOWLEDGE BASE ACTIVE]";

/** Options of `relevantContext`. */
export interface ContextOptions {
  /** At most this many records (default 3). */
  limit?: number;
  /** Keep hits scoring at least this (default 0.3; scores are in [0, 1]). */
  threshold?: number;
  namespace?: string;
  /** A conversation id: records injected in its last `skipTurns` injections are left out. */
  session?: string;
  /** Default 10. */
  skipTurns?: number;
}

/** An injected memory (the reference's fields). */
export interface InjectedMemory {
  id: string;
  target: string;
  title: string;
  rationale: string;
  consequences: string[];
  strengths: string[];
  objections: string[];
}

/**
 * The context to put before a prompt: the active records relevant to it above the threshold,
 * as `[KEEL KNOWLEDGE BASE ACTIVE]\n{"source":"keel","memories":[…]}`, or "" when none. Each
 * injection is recorded as a `context_injection` event; with a session, what was injected in
 * its last 10 injections is skipped.
 */
export async function relevantContext(
  ctx: MemoryContext,
  prompt: string,
  options: ContextOptions = {},
  newId: () => string,
): Promise<{ text: string; memories: InjectedMemory[] }> {
  const limit = options.limit ?? 3;
  const namespace = options.namespace ?? ctx.namespace;
  const recent = options.session
    ? await recentlyInjected(ctx, namespace, options.session, options.skipTurns ?? 10)
    : new Set<string>();
  const hits = await search(ctx, {
    query: prompt,
    limit: Math.min(50, limit + recent.size),
    namespace,
    mode: "strict",
  });
  const chosen = hits
    .filter((hit) => hit.score >= (options.threshold ?? 0.3) && !recent.has(hit.id))
    .slice(0, limit);
  if (chosen.length === 0) return { text: "", memories: [] };
  const records = await loadRecords(
    ctx.db,
    chosen.map((hit) => hit.id),
  );
  const list = (value: unknown) => (Array.isArray(value) ? value.map(String) : []);
  const memories = records.map((record) => ({
    id: record.id,
    target: record.target,
    title: record.title,
    rationale: record.rationale,
    consequences: list(record.context.consequences),
    strengths: list(record.context.strengths),
    objections: list(record.context.objections),
  }));
  await recordEvent(
    ctx,
    {
      source: "system",
      kind: "context_injection",
      content: `Injected ${memories.length} memories`,
      context: {
        session: options.session ?? null,
        record_ids: memories.map((m) => m.id),
        prompt: prompt.slice(0, 200),
        at: ctx.clock.now(),
      },
      namespace,
    },
    newId,
  );
  return {
    text: `${CONTEXT_MARKER}\n${JSON.stringify({ source: "keel", memories }, null, 2)}`,
    memories,
  };
}

async function recentlyInjected(
  ctx: MemoryContext,
  namespace: string,
  session: string,
  turns: number,
): Promise<Set<string>> {
  const rows = await ctx.db
    .selectFrom("state_memory_events")
    .select("context_json")
    .where("kind", "=", "context-injection")
    .where("namespace", "=", namespace)
    .orderBy("id", "desc")
    .limit(500)
    .execute();
  const ids = new Set<string>();
  let seen = 0;
  for (const row of rows) {
    const context = JSON.parse(row.context_json) as { session?: string; record_ids?: string[] };
    if (context.session !== session) continue;
    for (const id of context.record_ids ?? []) ids.add(id);
    if (++seen >= turns) break;
  }
  return ids;
}
