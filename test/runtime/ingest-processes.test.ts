/**
 * Ingestion under concurrency between real processes on one SQLite file: several processes
 * deliver the same webhook at the same instant; exactly one admits it, every other reports a
 * duplicate of that one, one event is stored, and each suppression is audited on its trace.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../src/core/index.js";
import { readAuditTrace, runtimeDb, verifyAuditLog } from "../../src/runtime/index.js";
import { openStore, type Store } from "../../src/store/index.js";
import {
  buildScript,
  lastJson,
  repoRoot,
  startScript,
} from "../checkpoint/support/child-script.js";

const PROCESSES = 6;

interface Outcome {
  status: string;
  eventId: string | null;
  originalEventId: string | null;
}

describe("ingestion between processes: SQLite", { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), "keel-ingest-processes-"));
  const db = join(dir, "keel.db");
  let store: Store;
  let worker: { path: string };
  beforeAll(async () => {
    worker = await buildScript("../runtime/ingest/ingest-worker.ts");
    store = await openStore({ db, backupBeforeMigrate: false });
    process.env.KEEL_MIGRATIONS_DIR = join(repoRoot, "src", "store", "migrations", "sqlite");
  });
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("admits exactly one of the same delivery from several processes at once", async () => {
    const messageId = `delivery-${newId()}`;
    const children = Array.from({ length: PROCESSES }, () =>
      startScript(worker.path, [db, messageId]),
    );
    await Promise.all(children.map((child) => child.line((line) => line === "ready")));
    for (const child of children) child.send("go");
    const exits = await Promise.all(children.map((child) => child.exit));
    for (const exit of exits) expect(exit.exitCode, exit.stderr).toBe(0);
    const outcomes = exits.map((exit) => lastJson<Outcome>(exit));
    const accepted = outcomes.filter((o) => o.status === "accepted");
    expect(accepted).toHaveLength(1);
    const original = accepted[0]?.eventId;
    expect(outcomes.filter((o) => o.status === "duplicate")).toHaveLength(PROCESSES - 1);
    for (const o of outcomes)
      if (o.status === "duplicate") expect(o.originalEventId).toBe(original);
    const events = await runtimeDb(store)
      .selectFrom("state_events")
      .select(["id", "trace_id"])
      .execute();
    expect(events.map((e) => e.id)).toEqual([original]);
    const types = (await readAuditTrace(store, events[0]?.trace_id ?? "")).map((e) => e.type);
    expect(types.filter((t) => t === "event.ingested")).toHaveLength(1);
    expect(types.filter((t) => t === "event.duplicate_suppressed")).toHaveLength(PROCESSES - 1);
    expect((await verifyAuditLog(store)).ok).toBe(true);
  });
});
