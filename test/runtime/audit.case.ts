import { afterAll, describe, expect, it } from "vitest";
import { isKeelError, newId, sha256Hex } from "../../src/core/index.js";
import { getArtifact } from "../../src/runtime/artifacts/artifact-store.js";
import { runtimeDb } from "../../src/runtime/db/tables.js";
import {
  AuditWriter,
  assertAuditLogIntact,
  readAuditTrace,
  searchAudit,
  validateContract,
  verifyAuditLog,
} from "../../src/runtime/index.js";
import type { Store } from "../../src/store/index.js";
import { ManualClock } from "./support/clock.js";
import { breakInserts, type RuntimeHarness, tamper } from "./support/harness.js";

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

async function writeSome(audit: AuditWriter, traceId: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await audit.write(traceId, {
      stage: "execute",
      type: "step.succeeded",
      summary: `step ${i} done`,
      outcome: "success",
    });
  }
}

export function runAuditCases(harness: RuntimeHarness): void {
  describe(`audit log: ${harness.dialect}`, () => {
    afterAll(() => harness.cleanup());

    it("sets the timestamp itself and writes contract-valid events, read back per trace", async () => {
      const store = await harness.open("audit_write");
      const clock = new ManualClock();
      const audit = new AuditWriter(store, { clock });
      const trace = newId();
      const first = await audit.write(trace, {
        stage: "tool_call",
        type: "tool_call.succeeded",
        summary: "ops.deploy apply succeeded",
        outcome: "success",
        refs: { tool_call_id: newId() },
        latencyMs: 12,
        toolName: "ops.deploy",
        riskLevel: "high",
        autonomyLevel: "A2",
      });
      clock.advance(5);
      await audit.write(newId(), {
        stage: "route",
        type: "route.decided",
        summary: "other trace",
        outcome: "info",
      });
      await audit.write(trace, {
        stage: "gate",
        type: "gate.approved",
        summary: "ana approved",
        outcome: "success",
      });
      expect(first.timestamp).toBe("2026-05-01T10:00:00.000Z");
      expect(validateContract("AuditEvent", first).ok).toBe(true);
      const events = await readAuditTrace(store, trace);
      expect(events.map((e) => e.type)).toEqual(["tool_call.succeeded", "gate.approved"]);
      expect(events[0]).toEqual(first);
      expect(events[1]?.timestamp).toBe("2026-05-01T10:00:00.005Z");
    });

    it("requires a trace id and a valid event, and writes nothing otherwise", async () => {
      const store = await harness.open("audit_invalid");
      const audit = new AuditWriter(store);
      for (const [trace, type] of [
        ["", "step.started"],
        ["not-a-uuid", "step.started"],
        [newId(), "undotted"],
      ] as const) {
        const error = await caught(
          audit.write(trace, { stage: "execute", type, summary: "x", outcome: "info" }),
        );
        expect(isKeelError(error) && error.code).toBe("AUDIT_INVALID");
      }
      expect(await runtimeDb(store).selectFrom("state_audit_events").selectAll().execute()).toEqual(
        [],
      );
    });

    it("is append-only: the database refuses UPDATE and DELETE", async () => {
      const store = await harness.open("audit_append_only");
      const audit = new AuditWriter(store);
      const trace = newId();
      await writeSome(audit, trace, 3);
      const db = runtimeDb(store);
      await expect(
        db.updateTable("state_audit_events").set({ summary: "rewritten" }).execute(),
      ).rejects.toThrow(/append-only/);
      await expect(db.deleteFrom("state_audit_events").execute()).rejects.toThrow(/append-only/);
      if (harness.dialect === "postgres") {
        await expect(harness.raw(store, "TRUNCATE state_audit_events")).rejects.toThrow(
          /append-only/,
        );
      }
      expect((await readAuditTrace(store, trace)).map((e) => e.summary)).toEqual([
        "step 0 done",
        "step 1 done",
        "step 2 done",
      ]);
      expect((await verifyAuditLog(store)).ok).toBe(true);
    });

    it("detects an altered event, a removed event, a removed tail and a forged event", async () => {
      const cases: [string, string, string][] = [
        [
          "altered",
          "UPDATE state_audit_events SET summary = 'nothing happened' WHERE seq = 3",
          "hash-mismatch",
        ],
        ["removed", "DELETE FROM state_audit_events WHERE seq = 2", "sequence-gap"],
        ["tail", "DELETE FROM state_audit_events WHERE seq = 5", "head-mismatch"],
        [
          "forged",
          "UPDATE state_audit_events SET outcome = 'failure', event_hash = prev_hash WHERE seq = 4",
          "hash-mismatch",
        ],
      ];
      for (const [label, statement, kind] of cases) {
        const store = await harness.open(`audit_tamper_${label}`);
        await writeSome(new AuditWriter(store), newId(), 5);
        expect((await verifyAuditLog(store)).ok).toBe(true);
        await tamper(harness, store, statement);
        const result = await verifyAuditLog(store);
        expect(result.ok, label).toBe(false);
        expect(
          result.findings.map((f) => f.kind),
          label,
        ).toContain(kind);
        const error = await caught(assertAuditLogIntact(store));
        expect(isKeelError(error) && error.code).toBe("AUDIT_TAMPERED");
      }
    });

    it("audits what verification finds: audit.tamper_detected with the findings, after the log it checked", async () => {
      const store = await harness.open("audit_tamper_detected");
      await writeSome(new AuditWriter(store), newId(), 3);
      await tamper(harness, store, "UPDATE state_audit_events SET summary = 'x' WHERE seq = 2");
      const quiet = await verifyAuditLog(store, { record: false });
      expect(quiet.recorded).toBeUndefined();
      const result = await verifyAuditLog(store);
      expect(result.ok).toBe(false);
      const recorded = result.recorded as { traceId: string; auditId: string };
      const [event, ...others] = await readAuditTrace(store, recorded.traceId);
      expect(others).toEqual([]);
      expect(event).toMatchObject({
        audit_id: recorded.auditId,
        type: "audit.tamper_detected",
        stage: "operator",
        outcome: "failure",
      });
      expect(await getArtifact(runtimeDb(store), event?.payload_ref as string)).toEqual({
        checked: 3,
        findings: JSON.parse(JSON.stringify(result.findings)),
      });
      // The record itself chains on: the next verification finds the same problem, nothing new.
      const again = await verifyAuditLog(store, { record: false });
      expect(again.findings).toEqual(result.findings);
      expect(again.checked).toBe(4);
    });

    it("rebuilds a lost chain head from the newest event (keel db reset keeps the log)", async () => {
      const store = await harness.open("audit_head_reset");
      const audit = new AuditWriter(store);
      await writeSome(audit, newId(), 3);
      await runtimeDb(store).deleteFrom("state_audit_heads").execute();
      await writeSome(audit, newId(), 2);
      expect(await verifyAuditLog(store)).toEqual({ ok: true, checked: 5, findings: [] });
    });

    it("keeps one unbroken chain under concurrent writers", async () => {
      const store = await harness.open("audit_concurrent");
      const audit = new AuditWriter(store);
      const trace = newId();
      await Promise.all(
        Array.from({ length: 25 }, (_, i) =>
          audit.write(trace, {
            stage: "execute",
            type: "step.done",
            summary: `w${i}`,
            outcome: "info",
          }),
        ),
      );
      const result = await verifyAuditLog(store);
      expect(result).toEqual({ ok: true, checked: 25, findings: [] });
    });

    it("appends a keyed event once: alone, with a payload, in a caller's transaction, and at once", async () => {
      const store = await harness.open("audit_keyed");
      const audit = new AuditWriter(store);
      const trace = newId();
      const entry = (key: string, summary = key) => ({
        stage: "route" as const,
        type: "ir.transition",
        summary,
        outcome: "info" as const,
        payload: { key },
        key,
      });
      const first = await audit.write(trace, entry("k1"));
      const again = await audit.write(trace, entry("k1", "a second try"));
      expect(again.audit_id).toBe(first.audit_id);
      await runtimeDb(store)
        .transaction()
        .execute(async (tx) => {
          await audit.write(trace, entry("k1"), tx);
          await audit.write(trace, entry("k2"), tx);
        });
      // Ten appenders of one key at once (Postgres: racing connections) leave one event.
      await Promise.all(Array.from({ length: 10 }, () => audit.write(trace, entry("k3"))));
      await audit.write(trace, { ...entry("k4"), payload: undefined });
      await audit.write(trace, { ...entry("k4"), payload: undefined });
      const events = await readAuditTrace(store, trace);
      expect(events.map((e) => e.summary)).toEqual(["k1", "k2", "k3", "k4"]);
      // One payload artifact per appended event: a skipped append leaves no orphan.
      const artifacts = await runtimeDb(store)
        .selectFrom("state_artifacts")
        .select("id")
        .where("kind", "=", "audit-payload")
        .execute();
      expect(artifacts).toHaveLength(3);
      expect(await verifyAuditLog(store)).toEqual({ ok: true, checked: 4, findings: [] });
    });

    it.runIf(harness.dialect === "postgres")(
      "appenders of one key queued behind the chain head's lock leave one event",
      async () => {
        const store = await harness.open("audit_keyed_queue");
        const native = store.native;
        if (native.dialect !== "postgres") throw new Error("a Postgres store");
        const audit = new AuditWriter(store);
        await audit.ensureHead();
        const trace = newId();
        const entry = {
          stage: "route" as const,
          type: "ir.transition",
          summary: "queued",
          outcome: "info" as const,
          key: "queued",
        };
        // Another transaction holds the head's lock, so every append waits on it and, when it
        // is released, each finds the log as the first one to get the lock left it.
        const holder = await native.pool.connect();
        try {
          await holder.query("BEGIN");
          await holder.query("SELECT 1 FROM state_audit_heads FOR UPDATE");
          const writes = Array.from({ length: 5 }, () => audit.write(trace, entry));
          // Lets the five statements reach the lock before it is released.
          await new Promise((resolve) => setTimeout(resolve, 300));
          await holder.query("COMMIT");
          await Promise.all(writes);
        } finally {
          holder.release();
        }
        expect((await readAuditTrace(store, trace)).map((e) => e.summary)).toEqual(["queued"]);
      },
    );

    it("stores a payload as an artifact referenced by payload_ref", async () => {
      const store = await harness.open("audit_payload");
      const event = await new AuditWriter(store).write(newId(), {
        stage: "normalize",
        type: "event.ingested",
        summary: "webhook from github",
        outcome: "success",
        payload: { body: { ref: "main" } },
      });
      expect(event.payload_ref).not.toBeNull();
      expect(await getArtifact(runtimeDb(store), event.payload_ref as string)).toEqual({
        body: { ref: "main" },
      });
      expect((await verifyAuditLog(store)).ok).toBe(true);
    });

    it("chains each payload: the database refuses to change one, and verify finds one changed anyway", async () => {
      const store = await harness.open("audit_payload_chain");
      const audit = new AuditWriter(store);
      const write = (body: unknown) =>
        audit.write(newId(), {
          stage: "gate",
          type: "gate.decision_refused",
          summary: "eve could not decide",
          outcome: "failure",
          payload: body,
        });
      const altered = await write({ code: "CAPABILITY_MISSING", by: "eve" });
      const removed = await write({ code: "APPROVAL_EXPIRED", by: "bo" });
      const db = runtimeDb(store);
      const ref = altered.payload_ref as string;
      await expect(
        db.updateTable("state_artifacts").set({ body_json: "{}" }).where("id", "=", ref).execute(),
      ).rejects.toThrow(/append-only/);
      await expect(
        db.deleteFrom("state_artifacts").where("id", "=", ref).execute(),
      ).rejects.toThrow(/append-only/);
      await db
        .insertInto("state_artifacts")
        .values({
          id: "other",
          kind: "tool-result",
          content_hash: "0".repeat(64),
          body_json: "{}",
          byte_count: 2,
          created_at: 1,
        })
        .execute();
      await expect(
        db
          .updateTable("state_artifacts")
          .set({ kind: "audit-payload" })
          .where("id", "=", "other")
          .execute(),
      ).rejects.toThrow(/append-only/);
      if (harness.dialect === "postgres") {
        await expect(harness.raw(store, "TRUNCATE state_artifacts CASCADE")).rejects.toThrow(
          /append-only/,
        );
      }
      expect((await verifyAuditLog(store)).ok).toBe(true);
      // Past the triggers, a payload rewritten with a matching stored hash is still caught.
      const forged = '{"by":"ana","code":"NONE"}';
      await tamper(
        harness,
        store,
        `UPDATE state_artifacts SET body_json = '${forged}', content_hash = '${sha256Hex(forged)}' WHERE id = '${ref}'; DELETE FROM state_artifacts WHERE id = '${removed.payload_ref}'`,
        "state_artifacts",
      );
      const result = await verifyAuditLog(store);
      expect(result.ok).toBe(false);
      expect(result.findings.map((f) => [f.kind, f.auditId])).toEqual([
        ["payload-altered", altered.audit_id],
        ["payload-missing", removed.audit_id],
      ]);
    });

    it("searches by type prefix, stage, outcome and summary text", async () => {
      const store = await harness.open("audit_search");
      const audit = new AuditWriter(store);
      const trace = newId();
      await audit.write(trace, {
        stage: "tool_call",
        type: "tool_call.attempted",
        summary: "Deploy API",
        outcome: "info",
      });
      await audit.write(trace, {
        stage: "tool_call",
        type: "tool_call.failed",
        summary: "deploy api: 50% done",
        outcome: "failure",
      });
      await audit.write(trace, {
        stage: "gate",
        type: "gate.approved",
        summary: "approved",
        outcome: "success",
      });
      await audit.write(trace, {
        stage: "gate",
        type: "toolxcall.other",
        summary: "decoy",
        outcome: "info",
      });
      const byPrefix = await searchAudit(store, { type: "tool_call." });
      expect(byPrefix.map((e) => e.type)).toEqual(["tool_call.failed", "tool_call.attempted"]);
      expect((await searchAudit(store, { text: "deploy" })).length).toBe(2);
      expect((await searchAudit(store, { text: "50%" })).map((e) => e.type)).toEqual([
        "tool_call.failed",
      ]);
      expect((await searchAudit(store, { outcome: "failure" })).length).toBe(1);
      expect((await searchAudit(store, { stage: "gate", limit: 1 })).map((e) => e.type)).toEqual([
        "toolxcall.other",
      ]);
    });

    it("fails the operation when the audit write fails, rolling back what it recorded", async () => {
      const store = await harness.open("audit_failure");
      await breakInserts(harness, store, "state_audit_events");
      const audit = new AuditWriter(store);
      const db = runtimeDb(store);
      const error = await caught(
        db.transaction().execute(async (tx) => {
          await tx
            .insertInto("state_artifacts")
            .values({
              id: "a1",
              kind: "tool-result",
              content_hash: "0".repeat(64),
              body_json: "{}",
              byte_count: 2,
              created_at: 1,
            })
            .execute();
          await audit.write(
            newId(),
            { stage: "execute", type: "step.done", summary: "x", outcome: "info" },
            tx,
          );
        }),
      );
      expect(isKeelError(error) && error.code).toBe("AUDIT_WRITE_FAILED");
      expect(await db.selectFrom("state_artifacts").selectAll().execute()).toEqual([]);
    });
  });
}

export type { Store };
