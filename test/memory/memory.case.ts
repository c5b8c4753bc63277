import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { isKeelError } from "../../src/core/index.js";
import {
  DecisionMemory,
  FULL_TEXT_SCAN,
  hashingEmbedder,
  type MemoryRecord,
} from "../../src/memory/index.js";
import { verifyAuditLog } from "../../src/runtime/index.js";
import { openStore, type Store } from "../../src/store/index.js";
import type { RuntimeHarness } from "../runtime/support/harness.js";

const RATIONALE = "Provides ACID transactions and JSONB support";

/** The error a promise rejects with (fails the test if it resolves). */
async function failure(
  promise: Promise<unknown>,
): Promise<{ code: string; message: string; details: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    if (!isKeelError(error)) throw error;
    return {
      code: error.code,
      message: error.message,
      details: (error.details ?? {}) as Record<string, unknown>,
    };
  }
  throw new Error("expected a failure");
}

/** Another connection to the same database (a second process, as far as the database knows). */
function reopen(store: Store): Promise<Store> {
  const location = store.location;
  return openStore({
    db: location.dialect === "sqlite" ? location.path : location.url,
    autoMigrate: false,
  });
}

async function auditTypes(store: Store, about = ""): Promise<string[]> {
  const rows = await store.kysely
    .withTables<{ state_audit_events: { type: string; seq: number; summary: string } }>()
    .selectFrom("state_audit_events")
    .select("type")
    .where("summary", "like", `%${about}%`)
    .orderBy("seq")
    .execute();
  return rows.map((row) => row.type);
}

/** The decision-memory conformance suite; each dialect's test file runs it. */
export function runMemoryCases(harness: RuntimeHarness): void {
  describe(`decision memory on ${harness.dialect}`, () => {
    afterAll(() => harness.cleanup());
    // One database for the cases that keep to a namespace of their own (a fresh database costs
    // seconds of migrations on Postgres); cases that read the whole database get their own.
    let sharedStore: Promise<Store> | undefined;
    const shared = () => {
      sharedStore ??= harness.open("mem_shared");
      return sharedStore;
    };

    it("records a decision with its audit event in the hash chain, and refuses a second on the target", async () => {
      const store = await shared();
      const memory = new DecisionMemory(store, { namespace: "record" });
      const first = await memory.record({
        title: "Use PostgreSQL",
        target: "database",
        rationale: RATIONALE,
        consequences: ["run migrations"],
      });
      expect(first).toMatchObject({
        kind: "decision",
        status: "active",
        target: "database",
        namespace: "record",
        source: "agent",
      });
      await memory.record({
        title: "Replica set",
        target: "database-replica",
        rationale: RATIONALE,
      });
      const conflict = await failure(
        memory.record({ title: "Use MySQL", target: "database", rationale: RATIONALE }),
      );
      expect(conflict.code).toBe("MEMORY_CONFLICT");
      expect(conflict.message).toContain(first.id);
      expect(conflict.details.activeIds).toEqual([first.id]);
      expect(conflict.details.didYouMean).toEqual(["database-replica"]);
      // Another namespace is another partition.
      await memory.record({
        title: "Use SQLite",
        target: "database",
        rationale: RATIONALE,
        namespace: "team_b",
      });
      expect(await auditTypes(store, "in namespace 'record'")).toEqual([
        "memory.decision_recorded",
        "memory.decision_recorded",
      ]);
      expect((await verifyAuditLog(store)).ok).toBe(true);
    });

    it("validates with JSON Pointer paths and refuses invalid UTF-8 and agent writes under human_only", async () => {
      const store = await shared();
      const memory = new DecisionMemory(store, { namespace: "validate" });
      const bad = await failure(memory.record({ title: " ", target: "db", rationale: "short" }));
      expect(bad.code).toBe("MEMORY_INVALID");
      expect(
        (bad.details.problems as { path: string; code: string }[]).map((p) => [p.path, p.code]),
      ).toEqual([
        ["/title", "string_too_short"],
        ["/target", "string_too_short"],
        ["/rationale", "string_too_short"],
      ]);
      const lone = await failure(
        memory.record({ title: "Broken \ud800 text", target: "encoding", rationale: RATIONALE }),
      );
      expect(lone.code).toBe("MEMORY_INVALID");
      // Bytes that are not UTF-8, decoded as UTF-8, become U+FFFD and are stored as such.
      const decoded = new TextDecoder().decode(Buffer.from([0x61, 0xff, 0xfe, 0x62]));
      const kept = await memory.record({
        title: `Bytes ${decoded}`,
        target: "encoding",
        rationale: RATIONALE,
      });
      expect((await memory.get(kept.id)).title).toBe("Bytes a\ufffd\ufffdb");
      const guarded = new DecisionMemory(store, { namespace: "validate", trust: "human_only" });
      expect(
        (await failure(guarded.record({ title: "T", target: "trusty", rationale: RATIONALE })))
          .code,
      ).toBe("MEMORY_TRUST");
      await guarded.record({ title: "T", target: "trusty", rationale: RATIONALE, source: "user" });
      expect(await memory.list()).toHaveLength(2);
    });

    it("supersedes only when every active conflict is named; links are two-way and history is kept", async () => {
      const store = await shared();
      const memory = new DecisionMemory(store, { namespace: "supersede" });
      const a = await memory.record({
        title: "Use PostgreSQL",
        target: "database",
        rationale: RATIONALE,
      });
      const missing = await failure(
        memory.supersede({
          title: "Use MySQL",
          target: "database",
          rationale: "MySQL is what the team runs",
          old_decision_ids: ["nope"],
        }),
      );
      expect(missing.code).toBe("MEMORY_NOT_FOUND");
      const other = await memory.record({
        title: "Cache",
        target: "caching",
        rationale: RATIONALE,
      });
      const partial = await failure(
        memory.supersede({
          title: "Use MySQL",
          target: "database",
          rationale: "MySQL is what the team runs",
          old_decision_ids: [other.id],
        }),
      );
      expect(partial.code).toBe("MEMORY_CONFLICT");
      expect(partial.details.missing).toEqual([a.id]);
      const short = await failure(
        memory.supersede({
          title: "Use MySQL",
          target: "database",
          rationale: "too short",
          old_decision_ids: [a.id],
        }),
      );
      expect((short.details.problems as { path: string }[])[0]?.path).toBe("/rationale");
      const b = await memory.supersede({
        title: "Use MySQL",
        target: "database",
        rationale: "MySQL is what the team runs",
        old_decision_ids: [a.id],
      });
      expect(b.supersedes).toEqual([a.id]);
      expect(await memory.get(a.id)).toMatchObject({ status: "superseded", superseded_by: b.id });
      const again = await failure(
        memory.supersede({
          title: "Use Oracle",
          target: "database",
          rationale: "Oracle is what the bank runs",
          old_decision_ids: [a.id],
        }),
      );
      expect(again.code).toBe("MEMORY_INVARIANT");
      expect((await memory.history(a.id)).map((h) => h.status)).toEqual(["active", "superseded"]);
      expect(
        (await memory.list({ target: "database", status: "active" })).map((r) => r.id),
      ).toEqual([b.id]);
      expect((await verifyAuditLog(store)).ok).toBe(true);
    });

    it("holds the invariants in the database itself", async () => {
      const store = await shared();
      const memory = new DecisionMemory(store, { namespace: "invariants" });
      const a = await memory.record({
        title: "Use PostgreSQL",
        target: "database",
        rationale: RATIONALE,
      });
      const b = await memory.record({ title: "Use Redis", target: "cache", rationale: RATIONALE });
      const rejects = async (statement: string) => {
        await expect(harness.raw(store, statement)).rejects.toThrow();
      };
      await rejects(`UPDATE state_memory_records SET target = 'storage' WHERE id = '${a.id}'`);
      await rejects(
        `UPDATE state_memory_records SET rationale = 'something else entirely' WHERE id = '${a.id}'`,
      );
      // A second active decision on the target.
      await rejects(
        `UPDATE state_memory_records SET status = 'active' WHERE id = '${b.id}'; INSERT INTO state_memory_records (id, ${harness.dialect === "sqlite" ? "seq, " : ""}namespace, kind, source, status, target, title, rationale, content, context_json, confidence, created_at, updated_at) VALUES ('x', ${harness.dialect === "sqlite" ? "1000000, " : ""}'invariants', 'decision', 'agent', 'active', 'database', 't', 'rationale here', 't', '{}', 1, 0, 0)`,
      );
      // Superseded without a successor, and a link to an older record (a cycle in the making).
      await rejects(`UPDATE state_memory_records SET status = 'superseded' WHERE id = '${a.id}'`);
      await rejects(
        `UPDATE state_memory_records SET status = 'superseded', superseded_by_memory_record_id = '${a.id}' WHERE id = '${b.id}'`,
      );
      await harness.raw(
        store,
        `UPDATE state_memory_records SET status = 'superseded', superseded_by_memory_record_id = '${b.id}' WHERE id = '${a.id}'`,
      );
      // Once superseded, never active again; the link never moves.
      await rejects(
        `UPDATE state_memory_records SET status = 'active', superseded_by_memory_record_id = NULL WHERE id = '${a.id}'`,
      );
      await rejects(`UPDATE state_memory_revisions SET status = 'active'`);
      expect((await memory.get(b.id)).supersedes).toEqual([a.id]);
    });

    it("proposes, accepts (superseding what it suggests) and rejects", async () => {
      const store = await shared();
      const memory = new DecisionMemory(store, { namespace: "proposals" });
      const old = await memory.record({
        title: "Poll the queue",
        target: "job_queue",
        rationale: RATIONALE,
      });
      const p = await memory.propose({
        title: "Use LISTEN/NOTIFY",
        target: "job_queue",
        rationale: "Polling wastes connections",
        confidence: 0.8,
        suggested_supersedes: [old.id],
        strengths: ["less load"],
      });
      expect(p).toMatchObject({ kind: "proposal", status: "draft", confidence: 0.8 });
      const decision = await memory.accept(p.id);
      expect(decision).toMatchObject({ kind: "decision", status: "active", supersedes: [old.id] });
      expect(decision.rationale).toBe(`[from proposal ${p.id}] Polling wastes connections`);
      expect((await memory.get(p.id)).context).toMatchObject({
        status: "accepted",
        converted_to: decision.id,
      });
      expect((await failure(memory.accept(p.id))).code).toBe("MEMORY_INVARIANT");
      const q = await memory.propose({
        title: "Use Kafka",
        target: "job_queue",
        rationale: "Kafka scales further",
        confidence: 0.3,
      });
      const rejected = await memory.reject(q.id, "too heavy for us");
      expect(rejected.status).toBe("rejected");
      expect(rejected.context.objections).toEqual(["too heavy for us"]);
      expect(
        (
          await failure(
            memory.propose({
              title: "T",
              target: "job_queue",
              rationale: RATIONALE,
              confidence: 1.5,
            }),
          )
        ).details.problems,
      ).toMatchObject([{ path: "/confidence", code: "less_than_equal" }]);
      expect(await auditTypes(store)).toContain("memory.proposal_accepted");
    });

    it("records events (duplicates once), links them, forgets records", async () => {
      const store = await shared();
      const memory = new DecisionMemory(store, { namespace: "events" });
      const e1 = await memory.recordEvent({
        source: "agent",
        kind: "error",
        content: "connection refused",
        context: { target: "database" },
      });
      expect(e1).toMatchObject({ store: "episodic", duplicate: false });
      const dup = await memory.recordEvent({
        source: "agent",
        kind: "error",
        content: "connection refused",
        context: { target: "database" },
      });
      expect(dup).toEqual({ ...e1, duplicate: true });
      const viaEvent = await memory.recordEvent({
        source: "user",
        kind: "constraint",
        content: "No PII in logs",
        context: {
          title: "No PII in logs",
          target: "logging",
          rationale: "Compliance requires it",
        },
      });
      expect(viaEvent.store).toBe("semantic");
      expect(
        (
          await failure(
            memory.recordEvent({ source: "robot" as never, kind: "prompt", content: "hi" }),
          )
        ).details.problems,
      ).toMatchObject([{ path: "/source", code: "literal_error" }]);
      const d = await memory.record({
        title: "Use PostgreSQL",
        target: "database",
        rationale: RATIONALE,
      });
      await memory.link(e1.id as number, d.id);
      expect((await failure(memory.link(999999, d.id))).code).toBe("MEMORY_NOT_FOUND");
      const [hit] = await memory.search({ query: "postgresql" });
      expect(hit).toMatchObject({ id: d.id, evidence_count: 1 });
      await memory.forget(d.id);
      expect((await failure(memory.get(d.id))).code).toBe("MEMORY_NOT_FOUND");
      expect((await memory.events({ kind: "error" }))[0]?.memory_record_id).toBeNull();
      expect(await memory.search({ query: "postgresql" })).toEqual([]);
      expect(await auditTypes(store)).toContain("memory.record_forgotten");
    });

    it("searches with the reference's boosts, resolves superseded hits, and is safe against query syntax", async () => {
      const store = await shared();
      const memory = new DecisionMemory(store, { namespace: "search" });
      const a = await memory.record({
        title: "Use PostgreSQL for storage",
        target: "database",
        rationale: RATIONALE,
        keywords: ["sql"],
      });
      await memory.propose({
        title: "PostgreSQL partitioning",
        target: "partitions",
        rationale: "Large tables need partitions",
        confidence: 0.5,
      });
      const hits = await memory.search({ query: "postgresql storage" });
      expect(hits.map((h) => h.kind)).toEqual(["decision", "proposal"]);
      expect(hits[0]?.score).toBeGreaterThan(hits[1]?.score ?? 1);
      expect(Object.keys(hits[0] ?? {}).slice(0, 5)).toEqual([
        "id",
        "score",
        "status",
        "preview",
        "kind",
      ]);
      const b = await memory.supersede({
        title: "Use CockroachDB",
        target: "database",
        rationale: "Multi-region writes are needed now",
        old_decision_ids: [a.id],
      });
      expect(
        (await memory.search({ query: "postgresql", mode: "balanced" })).map((h) => h.id),
      ).toContain(b.id);
      expect(
        (await memory.search({ query: "postgresql", mode: "audit" })).map((h) => h.id),
      ).toContain(a.id);
      expect(
        (await memory.search({ query: "postgresql", mode: "strict" })).every(
          (h) => h.status === "active",
        ),
      ).toBe(true);
      for (const query of [
        '"',
        "*",
        "NEAR",
        "--",
        'postgresql" OR "x',
        "NEAR(a b)",
        "a* -b : (c)",
        "'; DROP TABLE state_memory_records; --",
      ]) {
        await memory.search({ query });
      }
      expect((await memory.search({ query: 'NEAR "postgresql*" --' })).length).toBeGreaterThan(0);
      expect((await memory.get(b.id)).hit_count).toBeGreaterThan(0);
      expect(
        (await failure(memory.search({ query: "db", limit: 51 }))).details.problems,
      ).toMatchObject([{ path: "/limit", code: "less_than_equal" }]);
    });

    it("ranks the newest matches of common words and every match of rare words", async () => {
      const store = await shared();
      const memory = new DecisionMemory(store, { namespace: "scan" });
      // Rich in its rare word, so it ranks first on both engines (ts_rank weighs no IDF).
      const old = await memory.record({
        title: "Quasar outage: quasar runbook for quasar pages",
        target: "quasar-runbook",
        rationale: "Quasar pages go to the quasar platform rota",
      });
      // More common-word matches than FULL_TEXT_SCAN, all newer than the rare-word record.
      const n = FULL_TEXT_SCAN + 100;
      const columns =
        "id, namespace, kind, source, status, target, title, rationale, content, context_json, confidence, created_at, updated_at";
      const values = (i: string, ns: string) =>
        `'scan-' || '${ns}' || ${i}, '${ns}', 'decision', 'agent', 'active', 'widget-' || ${i}, 'Widget ' || ${i}, 'Widget widget widget rationale', '', '{}', 1, 0, 0`;
      const series = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${n})`;
      for (const ns of ["scan", "scan-other"]) {
        await sql
          .raw(
            harness.dialect === "sqlite"
              ? `${series} INSERT INTO state_memory_records (seq, ${columns}) SELECT (SELECT MAX(seq) FROM state_memory_records) + i, ${values("i", ns)} FROM n`
              : `${series} INSERT INTO state_memory_records (${columns}) SELECT ${values("i", ns)} FROM n`,
          )
          .execute(store.kysely);
      }
      const hits = await memory.search({ query: "widget quasar", limit: 10 });
      expect(hits[0]?.id).toBe(old.id);
      expect(hits).toHaveLength(10);
      expect(hits.every((h) => h.namespace === "scan")).toBe(true);
      // Only common words: the newest matches are the candidates.
      const common = await memory.search({ query: "widget", limit: 3 });
      expect(common.map((h) => h.target).every((t) => Number(t.slice(7)) > 100)).toBe(true);
    });

    it("fuses vectors from a pluggable embedder with full text", async () => {
      const store = await shared();
      const memory = new DecisionMemory(store, {
        namespace: "vectors",
        embedder: hashingEmbedder(),
      });
      const plain = new DecisionMemory(store, { namespace: "vectors" });
      const d = await memory.record({
        title: "Queue consumers",
        target: "workers",
        rationale: "Workers drain the queue in batches",
      });
      await memory.record({
        title: "Batch sizes",
        target: "batching",
        rationale: "Keep batches under a megabyte",
      });
      const vectors = await store.kysely
        .withTables<{ state_memory_vectors: { model: string; dimension_count: number } }>()
        .selectFrom("state_memory_vectors")
        .select(["model", "dimension_count"])
        .execute();
      expect(vectors).toContainEqual({ model: "keel-hashing-64", dimension_count: 64 });
      const fused = await memory.search({ query: "queue workers drain" });
      const textOnly = await plain.search({ query: "queue workers drain" });
      expect(fused[0]?.id).toBe(d.id);
      expect(textOnly[0]?.id).toBe(d.id);
      // Two rankings agree on it: reciprocal-rank fusion scores it above full text alone.
      expect(fused[0]?.score).toBeGreaterThan(textOnly[0]?.score ?? 1);
    });

    it("injects relevant context once per window of turns", async () => {
      const store = await shared();
      const memory = new DecisionMemory(store, { namespace: "context" });
      await memory.record({
        title: "Use PostgreSQL",
        target: "database",
        rationale: RATIONALE,
        consequences: ["use JSONB"],
      });
      const first = await memory.context("which database do we use? postgresql?", {
        session: "s1",
      });
      expect(first.text.startsWith("[KEEL KNOWLEDGE BASE ACTIVE]\n")).toBe(true);
      expect(JSON.parse(first.text.slice(first.text.indexOf("\n") + 1))).toMatchObject({
        source: "keel",
        memories: [{ target: "database", consequences: ["use JSONB"] }],
      });
      expect((await memory.context("postgresql again", { session: "s1" })).text).toBe("");
      expect((await memory.context("postgresql again", { session: "s2" })).memories).toHaveLength(
        1,
      );
      expect((await memory.context("nothing relevant here")).text).toBe("");
    });

    it("syncs a git repository's commits as commit_change events, read-only", async () => {
      const store = await shared();
      const memory = new DecisionMemory(store, { namespace: "git" });
      const repo = mkdtempSync(join(tmpdir(), "keel-mem-git-"));
      try {
        const git = (...args: string[]) =>
          execFileSync(
            "git",
            ["-C", repo, "-c", "user.name=T", "-c", "user.email=t@example.com", ...args],
            { stdio: "pipe" },
          );
        git("init", "-q");
        git("commit", "-q", "--allow-empty", "-m", "feat(core): first change", "-m", "body one");
        git("commit", "-q", "--allow-empty", "-m", "fix(core): second change");
        const head = execFileSync("git", ["-C", repo, "rev-parse", "HEAD"]).toString();
        expect(await memory.syncGit({ repoPath: repo, limit: 10 })).toEqual({ indexedCommits: 2 });
        expect(await memory.syncGit({ repoPath: repo, limit: 10 })).toEqual({ indexedCommits: 0 });
        const events = await memory.events({ kind: "commit_change" });
        expect(events.map((e) => e.content)).toEqual([
          "fix(core): second change",
          "feat(core): first change",
        ]);
        expect(events[1]?.context).toMatchObject({
          full_message: "feat(core): first change\n\nbody one",
        });
        expect(execFileSync("git", ["-C", repo, "rev-parse", "HEAD"]).toString()).toBe(head);
        expect((await failure(memory.syncGit({ repoPath: join(repo, "nope") }))).code).toBe(
          "MEMORY_GIT_FAILED",
        );
      } finally {
        rmSync(repo, { recursive: true, force: true });
      }
    });

    it("exports and imports a bundle, and writes markdown inside the folder whatever the namespace", async () => {
      const store = await harness.open("mem_bundle");
      const memory = new DecisionMemory(store);
      const a = await memory.record({
        title: "Use PostgreSQL",
        target: "database",
        rationale: RATIONALE,
        namespace: "../../etc",
      });
      await memory.supersede({
        title: "Use MySQL",
        target: "database",
        rationale: "MySQL is what the team runs",
        old_decision_ids: [a.id],
        namespace: "../../etc",
      });
      await memory.record({
        title: "Windows path",
        target: "paths",
        rationale: RATIONALE,
        namespace: "C:\\temp\\x/y",
      });
      await memory.recordEvent({ source: "agent", kind: "result", content: "deployed" });
      const bundle = await memory.exportBundle();
      expect(bundle.records).toHaveLength(3);
      const copy = new DecisionMemory(await harness.open("mem_bundle_copy"));
      expect(await copy.importBundle(JSON.parse(JSON.stringify(bundle)))).toEqual({
        records: 3,
        events: 1,
      });
      expect(await copy.importBundle(bundle)).toEqual({ records: 0, events: 0 });
      expect((await copy.get(a.id)).superseded_by).toBe(bundle.records[1]?.id);
      const broken = {
        ...bundle,
        records: bundle.records.map((r) => ({
          ...r,
          status: "active",
          superseded_by: null,
          id: `${r.id}-x`,
        })),
      };
      expect((await failure(copy.importBundle(broken))).code).toBe("MEMORY_INVARIANT");
      const dir = mkdtempSync(join(tmpdir(), "keel-mem-md-"));
      try {
        const files = await memory.exportMarkdown(join(dir, "out"));
        expect(files).toHaveLength(3);
        for (const file of files)
          expect(resolve(dir, "out", file).startsWith(resolve(dir, "out"))).toBe(true);
        expect(readdirSync(join(dir, "out")).sort()).toHaveLength(2);
        const text = readFileSync(join(dir, "out", files[0] as string), "utf8");
        expect(text).toMatch(/^---\nid: "[^"]+"\nkind: "decision"/);
        expect(text).toContain('namespace: "../../etc"');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("keeps 1 MB content and finds it", async () => {
      const store = await shared();
      const memory = new DecisionMemory(store, { namespace: "large" });
      const big = `${"lorem ipsum dolor sit amet ".repeat(40_000)}needle`.slice(0, 1_048_576);
      const record = await memory.record({
        title: "Huge",
        target: "huge_content",
        rationale: RATIONALE,
        content: `${big} zebrafish`,
      });
      expect((await memory.get(record.id)).content.length).toBe(big.length + 10);
      expect((await memory.search({ query: "huge" })).map((h) => h.id)).toEqual([record.id]);
    });

    it("16 concurrent writers on one target: exactly one active record, every other gets the conflict", async () => {
      const store = await shared();
      // Postgres: four connections racing for real. SQLite admits one writer at a time; several
      // connections in one process would only wait on each other's busy handler, so the
      // writers share one connection (and still interleave between statements).
      const stores =
        harness.dialect === "postgres"
          ? await Promise.all(Array.from({ length: 4 }, () => reopen(store)))
          : [store, store, store, store];
      try {
        const results = await Promise.allSettled(
          Array.from({ length: 16 }, (_, i) =>
            new DecisionMemory(stores[i % 4] as Store).record({
              title: `Writer ${i}`,
              target: "contended",
              rationale: RATIONALE,
            }),
          ),
        );
        const ok = results.filter(
          (r) => r.status === "fulfilled",
        ) as PromiseFulfilledResult<MemoryRecord>[];
        expect(ok).toHaveLength(1);
        for (const r of results) {
          if (r.status === "rejected")
            expect((r.reason as { code?: string }).code).toBe("MEMORY_CONFLICT");
        }
        const memory = new DecisionMemory(store);
        expect(
          (await memory.list({ target: "contended", status: "active" })).map((r) => r.id),
        ).toEqual([ok[0]?.value.id]);
        // Concurrent supersedes of one record: one wins, the chain stays a line.
        const old = ok[0]?.value.id as string;
        const races = await Promise.allSettled(
          Array.from({ length: 8 }, (_, i) =>
            new DecisionMemory(stores[i % 4] as Store).supersede({
              title: `Successor ${i}`,
              target: "contended",
              rationale: "A better way was found here",
              old_decision_ids: [old],
            }),
          ),
        );
        expect(races.filter((r) => r.status === "fulfilled")).toHaveLength(1);
        const active = await memory.list({ target: "contended", status: "active" });
        expect(active).toHaveLength(1);
        expect((await memory.get(old)).superseded_by).toBe(active[0]?.id);
        expect((await verifyAuditLog(store)).ok).toBe(true);
      } finally {
        if (harness.dialect === "postgres") for (const s of stores) await s.close();
      }
    });

    it("maintains: decays idle records, forgets the faded, archives and prunes old events", async () => {
      const store = await harness.open("mem_maintain");
      const memory = new DecisionMemory(store);
      const d = await memory.record({
        title: "Use PostgreSQL",
        target: "database",
        rationale: RATIONALE,
      });
      const p = await memory.propose({
        title: "Maybe Redis",
        target: "caching",
        rationale: "Redis could cache sessions",
        confidence: 0.3,
      });
      await memory.recordEvent({
        source: "agent",
        kind: "prompt",
        content: "old prompt",
        timestamp: new Date(Date.now() - 40 * 86_400_000).toISOString(),
      });
      const later = Date.now() + 21 * 86_400_000;
      const report = await memory.maintain(later);
      expect(report).toMatchObject({
        decayed: 1,
        forgotten: [p.id],
        vitalityChanged: 1,
        archivedEvents: 1,
        prunedEvents: 0,
      });
      expect((await memory.get(d.id)).confidence).toBeCloseTo(0.95, 10);
      expect((await memory.get(d.id)).vitality).toBe("decaying");
      // The same weeks are not counted twice; an archived event past the TTL is pruned.
      expect(await memory.maintain(later)).toMatchObject({
        decayed: 0,
        archivedEvents: 0,
        prunedEvents: 1,
      });
      expect(await memory.events()).toEqual([]);
      expect(await auditTypes(store)).toContain("memory.maintained");
    });
  });
}
