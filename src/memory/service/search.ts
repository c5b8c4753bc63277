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

/**
 * What fusion, boosts and supersede resolution read of a candidate: the small columns and the
 * number of events linked to it as evidence. The words (title, rationale, target) are read
 * only for the hits returned, not for every candidate (content may be 1 MB).
 */
interface Candidate extends RankedCandidate {
  status: string;
  vitality: string;
  superseded_by_memory_record_id: string | null;
  links: number;
}

/** The candidate columns of record `r`, with its evidence count. */
const COLUMNS = sql.raw(
  `r.id, r.kind, r.phase, r.status, r.vitality, r.superseded_by_memory_record_id,
  (SELECT count(*) FROM state_memory_events e WHERE e.memory_record_id = r.id) AS links`,
);

/** The fewest candidates each ranking hands to fusion and boosts. */
export const SEARCH_WINDOW = 100;

/**
 * Searches the records of a namespace: full text (FTS5 bm25 on SQLite, `ts_rank` on Postgres)
 * fused by reciprocal rank with vector similarity when an embedder is configured, boosted as
 * the reference does; superseded hits resolve to their active successor (except in `audit`
 * mode); `strict` keeps active records only. Every returned hit counts as a use (hit count and
 * last hit time, which semantic decay reads).
 *
 * A search of common words is two statements: the ranked candidates, and the hit counts (which
 * return the hits' words); more only when rare words or superseded hits need them.
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
  const fused = [...fuseRankings(lists)].sort((a, b) => b[1] - a[1]);
  const byId = new Map<string, Candidate>();
  for (const list of lists) for (const c of list) byId.set(c.id, c);
  if (request.mode !== "audit") await loadSuccessors(db, byId);
  const resolved = new Map<string, { candidate: Candidate; base: number }>();
  for (const [id, base] of fused) {
    let candidate = byId.get(id) as Candidate;
    if (request.mode !== "audit") candidate = resolveTruth(candidate, byId);
    if (request.mode === "strict" && candidate.status !== "active") continue;
    const seen = resolved.get(candidate.id);
    if (seen) seen.base += base;
    else resolved.set(candidate.id, { candidate, base });
  }
  const ranked = [...resolved.values()]
    .map(({ candidate, base }) => ({
      candidate,
      score: finalScore({
        base,
        links: candidate.links,
        phase: candidate.phase,
        vitality: candidate.vitality,
        kind: candidate.kind,
        status: candidate.status,
      }),
    }))
    .sort((a, b) => b.score - a.score)
    .slice(request.offset, request.offset + request.limit);
  const words = await countUses(
    ctx,
    ranked.map((r) => r.candidate.id),
  );
  const hits: SearchHit[] = [];
  for (const { candidate: c, score } of ranked) {
    const w = words.get(c.id);
    if (!w) continue; // forgotten since it was ranked
    hits.push({
      id: c.id,
      score,
      status: c.status,
      preview: w.title,
      kind: c.kind,
      target: w.target,
      title: w.title,
      rationale: w.rationale,
      namespace: w.namespace,
      phase: c.phase,
      vitality: c.vitality,
      evidence_count: c.links,
    });
  }
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
}

/** The best of the newest matches, how many matches were ranked, and maybe each word's count. */
interface Newest {
  rows: Scored[];
  scanned: number;
  /** How many records hold each word (at most the scan), when the dialect counted them. */
  counts: number[] | null;
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
  if (newest.scanned < FULL_TEXT_SCAN) return newest.rows;
  const counts = newest.counts ?? (await dialect.counts(db, terms, FULL_TEXT_SCAN));
  const rare = terms.filter((_term, i) => (counts[i] ?? 0) < FULL_TEXT_SCAN);
  if (rare.length === 0) return newest.rows;
  const ranked = await dialect.all(db, rare, namespace, window);
  const merged = new Map(ranked.map((c) => [c.id, c]));
  for (const c of newest.rows) merged.set(c.id, c);
  return [...merged.values()].sort((a, b) => b.score - a.score).slice(0, window);
}

interface TextDialect {
  /** The `window` best of the newest `scan` matches of any of the words in the namespace. */
  newest(
    db: MemoryDb,
    terms: string[],
    namespace: string,
    scan: number,
    window: number,
  ): Promise<Newest>;
  /** The `window` best matches of any of the words in the namespace (ranks every match). */
  all(db: MemoryDb, terms: string[], namespace: string, window: number): Promise<Scored[]>;
  /** How many records hold each word, counting at most `cap` (one statement). */
  counts(db: MemoryDb, terms: string[], cap: number): Promise<number[]>;
}

type ScoredRow = Omit<Scored, "links" | "score"> & {
  links: number | string;
  score: number | string;
  scanned?: number | string;
  counts?: (number | string)[] | null;
};

function scored(rows: ScoredRow[]): Scored[] {
  return rows.map(({ scanned: _s, counts: _c, ...row }) => ({
    ...row,
    links: Number(row.links),
    score: Number(row.score),
  }));
}

function newestOf(rows: ScoredRow[]): Newest {
  const first = rows[0];
  return {
    rows: scored(rows),
    scanned: Number(first?.scanned ?? 0),
    counts: first?.counts ? first.counts.map(Number) : null,
  };
}

// bm25 is lower for better matches: its negation is the score. The newest matches come from
// FTS5's own rowid-descending walk (rowid = seq), their namespace from the covering index
// (seq, namespace) of migration 032; only the best `window` are joined to their records.
// bm25 counts each word's matches once per query (its idf): the one cost here that grows with
// the number of matches.
const sqliteText: TextDialect = {
  async newest(db, terms, namespace, scan, window) {
    const rows = await sql<ScoredRow>`
      WITH m AS MATERIALIZED (
        SELECT t.rowid AS seq, -bm25(state_memory_texts) AS score
        FROM state_memory_texts t JOIN state_memory_records n ON n.seq = t.rowid
        WHERE state_memory_texts MATCH ${fts5Match(terms)} AND n.namespace = ${namespace}
        ORDER BY t.rowid DESC LIMIT ${scan}),
      b AS MATERIALIZED (SELECT seq, score FROM m ORDER BY score DESC LIMIT ${window})
      SELECT ${COLUMNS}, b.score, (SELECT count(*) FROM m) AS scanned
      FROM b JOIN state_memory_records r ON r.seq = b.seq
      ORDER BY b.score DESC`.execute(db);
    return newestOf(rows.rows);
  },
  async all(db, terms, namespace, window) {
    const rows = await sql<ScoredRow>`
      WITH b AS MATERIALIZED (
        SELECT t.rowid AS seq, -bm25(state_memory_texts) AS score
        FROM state_memory_texts t JOIN state_memory_records n ON n.seq = t.rowid
        WHERE state_memory_texts MATCH ${fts5Match(terms)} AND n.namespace = ${namespace}
        ORDER BY score DESC LIMIT ${window})
      SELECT ${COLUMNS}, b.score FROM b JOIN state_memory_records r ON r.seq = b.seq
      ORDER BY b.score DESC`.execute(db);
    return scored(rows.rows);
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

/** Each word's match count, capped: `ARRAY[…]` of one scalar subquery per word. */
function postgresCounts(terms: string[], cap: number) {
  const each = terms.map(
    (term) => sql`(SELECT count(*) FROM (SELECT 1 FROM state_memory_texts
      WHERE search_vector @@ to_tsquery('simple', ${tsQuery([term])}) LIMIT ${cap}) x)`,
  );
  return sql`ARRAY[${sql.join(each)}]`;
}

// The words live in state_memory_texts (migration 032) with the record's namespace and seq:
// the newest matches walk ix_state_memory_texts_namespace_seq backwards, testing each vector,
// and only the best `window` are joined to their records. One round trip: the words' counts
// ride along, computed only when the scan was full (the CASE evaluates its subqueries lazily).
const postgresText: TextDialect = {
  async newest(db, terms, namespace, scan, window) {
    const query = tsQuery(terms);
    const rows = await sql<ScoredRow>`
      WITH m AS MATERIALIZED (
        SELECT t.memory_record_id AS id, ts_rank(t.search_vector, to_tsquery('simple', ${query})) AS score
        FROM (SELECT memory_record_id, search_vector FROM state_memory_texts
          WHERE namespace = ${namespace} AND search_vector @@ to_tsquery('simple', ${query})
          ORDER BY seq DESC LIMIT ${scan}) t),
      b AS MATERIALIZED (SELECT id, score FROM m ORDER BY score DESC LIMIT ${window})
      SELECT ${COLUMNS}, b.score, (SELECT count(*) FROM m) AS scanned,
        CASE WHEN (SELECT count(*) FROM m) >= ${scan} THEN ${postgresCounts(terms, scan)} END AS counts
      FROM b JOIN state_memory_records r ON r.id = b.id
      ORDER BY b.score DESC`.execute(db);
    return newestOf(rows.rows);
  },
  async all(db, terms, namespace, window) {
    const query = tsQuery(terms);
    const rows = await sql<ScoredRow>`
      WITH b AS MATERIALIZED (
        SELECT memory_record_id AS id, ts_rank(search_vector, to_tsquery('simple', ${query})) AS score
        FROM state_memory_texts
        WHERE namespace = ${namespace} AND search_vector @@ to_tsquery('simple', ${query})
        ORDER BY score DESC LIMIT ${window})
      SELECT ${COLUMNS}, b.score FROM b JOIN state_memory_records r ON r.id = b.id
      ORDER BY b.score DESC`.execute(db);
    return scored(rows.rows);
  },
  async counts(db, terms, cap) {
    const row = await sql<{ n: string[] }>`SELECT ${postgresCounts(terms, cap)} AS n`.execute(db);
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
  const rows = await sql<
    Omit<Candidate, "links"> & { links: number | string; vector_json: string }
  >`
    SELECT v.vector_json, ${COLUMNS}
    FROM state_memory_vectors v JOIN state_memory_records r ON r.id = v.memory_record_id
    WHERE r.namespace = ${namespace} AND v.model = ${embedder.model}`.execute(db);
  return rows.rows
    .map((row) => ({ row, similarity: cosine(vector, JSON.parse(row.vector_json) as number[]) }))
    .filter((entry) => entry.similarity > 0)
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, pool)
    .map(({ row }) => {
      const { vector_json: _v, ...candidate } = row;
      return { ...candidate, links: Number(candidate.links) };
    });
}

/**
 * Reads the successors of superseded candidates into `cache`, one statement per hop (chains
 * only ascend; at most 32 hops), so resolving truth needs no statement per candidate.
 */
async function loadSuccessors(db: MemoryDb, cache: Map<string, Candidate>): Promise<void> {
  let wanted = [...cache.values()];
  for (let hop = 0; hop < 32; hop++) {
    const missing = [
      ...new Set(
        wanted
          .map((c) => c.superseded_by_memory_record_id)
          .filter((id): id is string => id !== null && !cache.has(id)),
      ),
    ];
    if (missing.length === 0) return;
    const rows = await sql<Omit<Candidate, "links"> & { links: number | string }>`
      SELECT ${COLUMNS} FROM state_memory_records r
      WHERE r.id IN (${sql.join(missing)})`.execute(db);
    wanted = rows.rows.map((row) => ({ ...row, links: Number(row.links) }));
    for (const c of wanted) cache.set(c.id, c);
  }
}

/** Follows `superseded_by` to the record in force through `cache` (see loadSuccessors). */
function resolveTruth(candidate: Candidate, cache: Map<string, Candidate>): Candidate {
  let current = candidate;
  for (let hop = 0; hop < 32 && current.superseded_by_memory_record_id; hop++) {
    const found = cache.get(current.superseded_by_memory_record_id);
    if (!found) break;
    current = found;
  }
  return current;
}

interface Words {
  target: string;
  title: string;
  rationale: string;
  namespace: string;
}

/**
 * Counts returned hits as uses and returns their words (one statement): a use is not a change
 * of meaning (not versioned or audited). On Postgres the statement commits without waiting for
 * the WAL flush (`synchronous_commit` off for its own implicit transaction, set by
 * `set_config(…, true)` in the statement): a crash may lose the last few counts, never a
 * record, and a search does not pay a disk flush.
 */
async function countUses(ctx: MemoryContext, ids: string[]): Promise<Map<string, Words>> {
  if (ids.length === 0) return new Map();
  const now = ctx.clock.now();
  const unflushed =
    ctx.store.dialect === "sqlite"
      ? sql``
      : sql`AND (SELECT set_config('synchronous_commit', 'off', true)) IS NOT NULL`;
  const rows = await sql<Words & { id: string }>`
    UPDATE state_memory_records SET hit_count = hit_count + 1, last_hit_at = ${now}
    WHERE id IN (${sql.join(ids)}) ${unflushed}
    RETURNING id, target, title, rationale, namespace`.execute(ctx.db);
  return new Map(rows.rows.map((row) => [row.id, row]));
}
