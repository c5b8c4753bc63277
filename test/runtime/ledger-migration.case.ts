import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { hashValue, isKeelError, newId } from "../../src/core/index.js";
import { runtimeDb } from "../../src/runtime/db/tables.js";
import { AuditWriter, ToolLedger, verifyAuditLog } from "../../src/runtime/index.js";
import { migrate } from "../../src/store/index.js";
import type { RuntimeHarness } from "./support/harness.js";
import { testTools, type World } from "./support/tools.js";

const BEFORE = 19;

/**
 * Migration 020 (the ledger's write path) on a database that already holds calls and audit
 * events: the request moves onto the row for new calls while old ones keep their artifact, the
 * live key follows each call's status, the chain still verifies, and the ledger works on the
 * migrated rows (a succeeded key replays, a failed key may be used again, a live key is unique).
 */
export function runLedgerMigrationCases(stores: RuntimeHarness): void {
  describe(`migration 020 with calls recorded before it: ${stores.dialect}`, () => {
    afterAll(() => stores.cleanup());

    it("keeps every call and event, sets live_key by status, and the ledger carries on", async () => {
      const store = await stores.openUnmigrated("ledger_020");
      await migrate(store, { to: BEFORE, backup: false });
      const db = runtimeDb(store);
      const audit = new AuditWriter(store);
      const traceId = newId();
      await audit.write(traceId, {
        stage: "execute",
        type: "task.started",
        summary: "before 020",
        outcome: "info",
      });
      const request = {
        action: "append",
        input: { line: "a" },
        tool: "test.append",
        version: "1.0.0",
      };
      const requestJson = JSON.stringify(request);
      const requestHash = hashValue(request);
      await sql`INSERT INTO state_artifacts (id, kind, content_hash, body_json, byte_count, created_at)
        VALUES ('req-1', 'tool-request', ${requestHash}, ${requestJson}, ${requestJson.length}, 1)`.execute(
        db,
      );
      await sql`INSERT INTO state_artifacts (id, kind, content_hash, body_json, byte_count, created_at)
        VALUES ('res-1', 'tool-result', ${hashValue({ count: 1 })}, '{"count":1}', 11, 2)`.execute(
        db,
      );
      const insertCall = (id: string, key: string, status: string, result: string | null) =>
        sql`INSERT INTO state_tool_calls (id, trace_id, connector_id, tool_name, tool_version, action,
          request_hash, request_artifact_id, idempotency_key, status, risk_level, autonomy_level,
          result_status, response_hash, result_artifact_id, created_at, updated_at, resolved_at)
          VALUES (${id}, ${traceId}, 'test', 'test.append', '1.0.0', 'append', ${requestHash},
          'req-1', ${key}, ${status}, 'low', 'a4',
          ${result === null ? null : status}, ${result === null ? null : hashValue({ count: 1 })},
          ${result}, 1, 2, ${result === null ? null : 2})`.execute(db);
      // Ids as the ledger makes them: audit events refer to calls by UUID.
      const ids = { ok: newId(), failed: newId(), doubt: newId() };
      await insertCall(ids.ok, "k-ok", "succeeded", "res-1");
      await insertCall(ids.failed, "k-failed", "failed", "res-1");
      await insertCall(ids.doubt, "k-doubt", "unknown", null);

      await migrate(store, { backup: false });

      const rows = await db
        .selectFrom("state_tool_calls")
        .select(["id", "live_key", "request_json", "request_artifact_id"])
        .orderBy("id")
        .execute();
      expect(rows).toEqual([
        { id: ids.ok, live_key: "k-ok", request_json: null, request_artifact_id: "req-1" },
        { id: ids.failed, live_key: null, request_json: null, request_artifact_id: "req-1" },
        { id: ids.doubt, live_key: "k-doubt", request_json: null, request_artifact_id: "req-1" },
      ]);
      expect((await verifyAuditLog(store)).ok).toBe(true);

      const world: World = { lines: [], calls: 0 };
      const ledger = new ToolLedger({ store, tools: testTools(world), audit });
      const call = (key: string) =>
        ledger.call({
          tool: "test.append",
          input: { line: "a" },
          idempotencyKey: key,
          traceId,
          riskLevel: "low",
          autonomyLevel: "A4",
          capabilities: ["fs:write"],
        });
      // Succeeded before the migration: answered from the ledger, not run.
      const replayed = await call("k-ok");
      expect(replayed).toMatchObject({ replayed: true, output: { count: 1 } });
      // Failed before: the key is free, so the call runs and is recorded anew.
      const rerun = await call("k-failed");
      expect(rerun.replayed).toBe(false);
      expect(world.calls).toBe(1);
      // Still unknown: not run again (the tool is not retry-safe), an operator must settle it.
      const held = await call("k-doubt").catch((error: unknown) => error);
      expect(isKeelError(held) && held.code).toBe("TOOL_CALL_UNKNOWN");
      expect(world.calls).toBe(1);
      // The database, not only the ledger's lookup, refuses a second live call for a key.
      const duplicate = await sql`INSERT INTO state_tool_calls (id, trace_id, connector_id,
          tool_name, tool_version, action, request_hash, request_json, idempotency_key, live_key,
          status, risk_level, autonomy_level, created_at, updated_at)
          VALUES ('dup', ${traceId}, 'test', 'test.append', '1.0.0', 'append', 'h', '{}', 'k-ok',
          'k-ok', 'attempted', 'low', 'a4', 1, 1)`
        .execute(db)
        .catch((error: unknown) => error);
      expect(duplicate).toBeInstanceOf(Error);
      expect(String((duplicate as Error).message)).toMatch(/live_key|unique/i);
      expect((await verifyAuditLog(store)).ok).toBe(true);
    });
  });
}
