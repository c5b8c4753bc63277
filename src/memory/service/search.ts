import { sql } from "kysely";
import { KeelError } from "../../core/index.js";
import {
  SearchDecisionsRequest,
  type SearchDecisionsRequest as SearchRequest,
} from "../models/requests.js";
import { memoryProblems } from "../models/validate.js";
import { cosine } from "../search/embedder.js";
import { finalScore, fuseRankings, type RankedCandidate } from "../search/fusion.js";
import { fts5Match, queryTerms, tsQuery } from "../search/query-terms.js";
import type { MemoryDb } from "../store/tables.js";
import type { MemoryContext } from "./context.js";

/** One search result (the seed's `SearchResultItem` fields first). */
export interface SearchHit {
  id: string;
  score: number;
  status: string;
  /** The title. */
  preview: string;
  kind: string;
  target: string;
  title: string;
  rationale: string;
  namespace: string;
  phase: string;
  vitality: string;
  /** Episodic events linked to the record as evidence. */
  evidence_count: number;
}

interface Candidate extends RankedCandidate {
  status: string;
  vitality: string;
  superseded_by_memory_record_id: string | null;
  target: string;
  title: string;
  rationale: string;
  namespace: string;
}

const CANDIDATE_COLUMNS = [
  "id",
  "kind",
  "phase",
  "status",
  "vitality",
  "superseded_by_memory_record_id",
  "target",
  "title",
  "rationale",
  "namespace",
] as const;

/** The fewest candidates each ranking hands to fusion and boosts. */
export const SEARCH_WINDOW = 100;

/**
 * Searches the records of a namespace: full text (FTS5 bm25 on SQLite, `ts_rank` on Postgres)
 * fused by reciprocal rank with vector similarity when an embedder is configured, boosted as
 * the reference does; superseded hits resolve to their active successor (except in `audit`
 * mode); `strict` keeps active records only. Every returned hit counts as a use (hit count and
 * last hit time, which semantic decay reads).
 */
export async function search(
  ctx: MemoryContext,
  input: Partial<SearchRequest> & { query: string },
): Promise<SearchHit[]> {
  const parsed = SearchDecisionsRequest.safeParse({ namespace: ctx.namespace, ...input });
  if (!parsed.success) {
    const problems = memoryProblems("SearchDecisionsRequest", parsed.error.issues, input);
    throw new KeelError(
      "MEMORY_INVALID",
      `The search request is invalid: ${problems.map((p) => `${p.path} ${p.message}`).join("; ")}`,
      { details: { problems } },
    );
  }
  const request = parsed.data;
  const terms = queryTerms(request.query);
  // Fusion and boosts read the best `window` of each ranking (see docs/memory.md).
  const pool = Math.max(SEARCH_WINDOW, (request.offset + request.limit) * 10);
  const db = ctx.db;
  const lists: Candidate[][] = [];
  if (terms.length > 0) lists.push(await fullText(ctx, db, terms, request.namespace, pool));
  if (ctx.embedder) lists.push(await bySimilarity(ctx, db, request.query, request.namespace, pool));
  const fused = fuseRankings(lists);
  const byId = new Map(lists.flat().map((c) => [c.id, c]));
  const resolved = new Map<string, { candidate: Candidate; base: number }>();
  for (const [id, base] of [...fused].sort((a, b) => b[1] - a[1])) {
    let candidate = byId.get(id) as Candidate;
    if (request.mode !== "audit") candidate = await resolveTruth(db, candidate, byId);
    if (request.mode === "strict" && candidate.status !== "active") continue;
    const seen = resolved.get(candidate.id);
    if (seen) seen.base += base;
    else resolved.set(candidate.id, { candidate, base });
  }
  const links = await linkCounts(db, [...resolved.keys()]);
  const ranked = [...resolved.values()]
    .map(({ candidate, base }) => ({
      candidate,
      score: finalScore({
        base,
        links: links.get(candidate.id) ?? 0,
        phase: candidate.phase,
        vitality: candidate.vitality,
        kind: candidate.kind,
        status: candidate.status,
      }),
    }))
    .sort((a, b) => b.score - a.score)
    .slice(request.offset, request.offset + request.limit);
  const hits = ranked.map(({ candidate: c, score }) => ({
    id: c.id,
    score,
    status: c.status,
    preview: c.title,
    kind: c.kind,
    target: c.target,
    title: c.title,
    rationale: c.rationale,
    namespace: c.namespace,
    phase: c.phase,
    vitality: c.vitality,
    evidence_count: links.get(c.id) ?? 0,
  }));
  if (hits.length > 0)
    await countUses(
      ctx,
      hits.map((h) => h.id),
    );
  return hits;
}

/**
 * How many of a query's matches full text ranks: the newest this many matches (by `seq`, in
 * the namespace) plus every match of the query's rare words (those matching fewer records).
 * Ranking every match of a common word is O(matches) in both engines (bm25 and ts_rank have no
 * index-ordered top-k), so this bounds a search's cost; below it ranking is exact.
 */
export const FULL_TEXT_SCAN = 500;

interface Scored extends Candidate {
  score: number;
  /** How many matches `newest` ranked (at most the scan). */
  scanned?: number;
}

/**
 * The `window` best full-text candidates. Exact when the query matches fewer than
 * FULL_TEXT_SCAN records in the namespace; otherwise the best of (a) the newest FULL_TEXT_SCAN
 * matches, ranked by the whole query, and (b) every match of the words that each match fewer
 * than FULL_TEXT_SCAN records, ranked by those words (a lower bound of their whole-query rank).
 */
async function fullText(
  ctx: MemoryContext,
  db: MemoryDb,
  terms: string[],
  namespace: string,
  window: number,
): Promise<Candidate[]> {
  const dialect = ctx.store.dialect === "sqlite" ? sqliteText : postgresText;
  const newest = await dialect.newest(db, terms, namespace, FULL_TEXT_SCAN, window);
  if (Number(newest[0]?.scanned ?? 0) < FULL_TEXT_SCAN) return best(newest, window);
  const counts = await dialect.counts(db, terms, FULL_TEXT_SCAN);
  const rare = terms.filter((_term, i) => (counts[i] ?? 0) < FULL_TEXT_SCAN);
  if (rare.length === 0) return best(newest, window);
  const ranked = await dialect.all(db, rare, namespace, window);
  const merged = new Map(ranked.map((c) => [c.id, c]));
  for (const c of newest) merged.set(c.id, c);
  return best([...merged.values()], window);
}

function best(candidates: Scored[], window: number): Candidate[] {
  return candidates
    .sort((a, b) => b.score - a.score)
    .slice(0, window)
    .map(({ score: _s, scanned: _n, ...c }) => c);
}

interface TextDialect {
  /**
   * The `window` best of the newest `scan` matches of any of the words in the namespace, each
   * with how many matches were ranked.
   */
  newest(
    db: MemoryDb,
    terms: string[],
    namespace: string,
    scan: number,
    window: number,
  ): Promise<Scored[]>;
  /** The `window` best matches of any of the words in the namespace (ranks every match). */
  all(db: MemoryDb, terms: string[], namespace: string, window: number): Promise<Scored[]>;
  /** How many records hold each word, counting at most `cap` (one statement). */
  counts(db: MemoryDb, terms: string[], cap: number): Promise<number[]>;
}

const COLUMNS = sql.raw(CANDIDATE_COLUMNS.map((c) => `r.${c}`).join(", "));

// bm25 is lower for better matches: its negation is the score. The newest matches come from
// FTS5's own rowid-descending walk (rowid = seq), so only `scan` rows are ranked.
const sqliteText: TextDialect = {
  async newest(db, terms, namespace, scan, window) {
    const rows = await sql<Scored>`
      WITH m AS MATERIALIZED (
        SELECT r.seq AS seq, -bm25(state_memory_texts) AS score
        FROM state_memory_texts t JOIN state_memory_records r ON r.seq = t.rowid
        WHERE state_memory_texts MATCH ${fts5Match(terms)} AND r.namespace = ${namespace}
        ORDER BY t.rowid DESC LIMIT ${scan})
      SELECT ${COLUMNS}, m.score, (SELECT count(*) FROM m) AS scanned
      FROM m JOIN state_memory_records r ON r.seq = m.seq
      ORDER BY m.score DESC LIMIT ${window}`.execute(db);
    return rows.rows;
  },
  async all(db, terms, namespace, window) {
    const rows = await sql<Scored>`
      SELECT ${COLUMNS}, -bm25(state_memory_texts) AS score
      FROM state_memory_texts t JOIN state_memory_records r ON r.seq = t.rowid
      WHERE state_memory_texts MATCH ${fts5Match(terms)} AND r.namespace = ${namespace}
      ORDER BY bm25(state_memory_texts) LIMIT ${window}`.execute(db);
    return rows.rows;
  },
  async counts(db, terms, cap) {
    const each = terms.map(
      (term) => sql`(SELECT count(*) FROM (SELECT rowid FROM state_memory_texts
        WHERE state_memory_texts MATCH ${fts5Match([term])} LIMIT ${cap}))`,
    );
    const row = await sql<{ n: string }>`SELECT json_array(${sql.join(each)}) AS n`.execute(db);
    return JSON.parse(row.rows[0]?.n ?? "[]") as number[];
  },
};

const postgresText: TextDialect = {
  async newest(db, terms, namespace, scan, window) {
    const rows = await sql<Scored>`
      SELECT ${sql.raw(CANDIDATE_COLUMNS.join(", "))}, ts_rank(search_vector, q) AS score,
        count(*) OVER () AS scanned
      FROM (SELECT ${COLUMNS}, r.search_vector FROM state_memory_records r
        WHERE r.search_vector @@ to_tsquery('simple', ${tsQuery(terms)}) AND r.namespace = ${namespace}
        ORDER BY r.seq DESC LIMIT ${scan}) r, to_tsquery('simple', ${tsQuery(terms)}) q
      ORDER BY score DESC LIMIT ${window}`.execute(db);
    return rows.rows.map((row) => ({ ...row, score: Number(row.score) }));
  },
  async all(db, terms, namespace, window) {
    const rows = await sql<Scored>`
      SELECT ${COLUMNS}, ts_rank(r.search_vector, q) AS score
      FROM state_memory_records r, to_tsquery('simple', ${tsQuery(terms)}) q
      WHERE r.search_vector @@ q AND r.namespace = ${namespace}
      ORDER BY ts_rank(r.search_vector, q) DESC LIMIT ${window}`.execute(db);
    return rows.rows.map((row) => ({ ...row, score: Number(row.score) }));
  },
  async counts(db, terms, cap) {
    const each = terms.map(
      (term) => sql`(SELECT count(*) FROM (SELECT 1 FROM state_memory_records
        WHERE search_vector @@ to_tsquery('simple', ${tsQuery([term])}) LIMIT ${cap}) x)`,
    );
    const row = await sql<{ n: string[] }>`SELECT ARRAY[${sql.join(each)}] AS n`.execute(db);
    return (row.rows[0]?.n ?? []).map(Number);
  },
};

async function bySimilarity(
  ctx: MemoryContext,
  db: MemoryDb,
  query: string,
  namespace: string,
  pool: number,
): Promise<Candidate[]> {
  const embedder = ctx.embedder;
  if (!embedder) return [];
  const [vector] = await embedder.embed([query]);
  if (!vector) return [];
  const rows = await db
    .selectFrom("state_memory_vectors as v")
    .innerJoin("state_memory_records as r", "r.id", "v.memory_record_id")
    .select(["v.vector_json", ...CANDIDATE_COLUMNS.map((c) => `r.${c}` as const)])
    .where("r.namespace", "=", namespace)
    .where("v.model", "=", embedder.model)
    .execute();
  return rows
    .map((row) => ({ row, similarity: cosine(vector, JSON.parse(row.vector_json) as number[]) }))
    .filter((entry) => entry.similarity > 0)
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, pool)
    .map(({ row }) => {
      const { vector_json: _v, ...candidate } = row;
      return candidate as Candidate;
    });
}

/** Follows `superseded_by` to the record in force (at most 32 hops; chains only ascend). */
async function resolveTruth(
  db: MemoryDb,
  candidate: Candidate,
  cache: Map<string, Candidate>,
): Promise<Candidate> {
  let current = candidate;
  for (let hop = 0; hop < 32 && current.superseded_by_memory_record_id; hop++) {
    const next = current.superseded_by_memory_record_id;
    let found = cache.get(next);
    if (!found) {
      found = (await db
        .selectFrom("state_memory_records")
        .select([...CANDIDATE_COLUMNS])
        .where("id", "=", next)
        .executeTakeFirst()) as Candidate | undefined;
      if (!found) break;
      cache.set(next, found);
    }
    current = found;
  }
  return current;
}

async function linkCounts(db: MemoryDb, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom("state_memory_events")
    .select(["memory_record_id", (eb) => eb.fn.countAll<number>().as("n")])
    .where("memory_record_id", "in", ids)
    .groupBy("memory_record_id")
    .execute();
  return new Map(rows.map((row) => [row.memory_record_id as string, Number(row.n)]));
}

/**
 * Counts returned hits as uses: not a change of meaning (not versioned or audited), and on
 * Postgres committed without waiting for the WAL flush (a crash may lose the last few counts,
 * never a record): a search does not pay a disk flush.
 */
async function countUses(ctx: MemoryContext, ids: string[]): Promise<void> {
  const now = ctx.clock.now();
  const update = (db: MemoryDb) =>
    db
      .updateTable("state_memory_records")
      .set((eb) => ({ hit_count: eb("hit_count", "+", 1), last_hit_at: now }))
      .where("id", "in", ids)
      .execute();
  if (ctx.store.dialect === "sqlite") {
    await update(ctx.db);
    return;
  }
  await ctx.store.transaction(async (tx) => {
    await sql`SET LOCAL synchronous_commit TO OFF`.execute(tx);
    await update(tx as unknown as MemoryDb);
  });
}
