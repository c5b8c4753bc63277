import { sql } from "kysely";
import { ownerIsDead } from "../../checkpoint/index.js";
import { KeelError, toKeelError } from "../../core/index.js";
import type { Store } from "../../store/index.js";
import { AuditWriter } from "../audit/audit-writer.js";
import { runtimeDb } from "../db/tables.js";
import { DEFAULT_CALL_LEASE_MS } from "../ledger/call-lease.js";
import { ToolLedger } from "../ledger/tool-ledger.js";
import { ToolRegistry } from "../tools/tool-registry.js";
import { loadRunApp } from "./governed-app.js";
import type { GovernedRunResult } from "./governed-runtime.js";
import { loadGrant } from "./run-grants.js";

/** What recovering one run came to. */
export interface Recovery {
  runId: string;
  /** The run's status before recovery. */
  before: string;
  /** The run's calls left `attempted` by the dead process, now `unknown` (audited). */
  markedUnknown: string[];
  /**
   * `recovered`: the run went on from its last checkpoint (it may now wait for `keel ledger
   * resolve` or an approval, or have finished); `finished`: nothing to do; `no-app`: it recorded
   * neither an application module nor a document, so only its calls were marked.
   */
  outcome: "recovered" | "finished" | "no-app";
  result: GovernedRunResult | null;
}

/**
 * An operator's recovery of a governed run whose process was killed (`keel runs recover`): its
 * calls left `attempted` whose lease lapsed become `unknown` (audited), then the run goes on from
 * its last checkpoint with the module or document it recorded, so a call in doubt pauses it for
 * `keel ledger resolve` instead of being redone. A run another live process holds is refused
 * (`THREAD_LEASED`, from the run store); a finished or paused run is left alone.
 *
 * @example
 * const r = await recoverGovernedRun(store, runId);
 * // r.markedUnknown → settle each with keel ledger resolve <id> --outcome … --reason …
 */
export async function recoverGovernedRun(store: Store, runId: string): Promise<Recovery> {
  const grant = await loadGrant(runtimeDb(store), runId);
  if (!grant) {
    throw new KeelError("RUN_NOT_FOUND", `Run "${runId}" is not a governed run.`, {
      details: { runId },
      hint: "`keel runs list` shows the runs; only governed runs (keel run, GovernedRuntime.start) are recovered.",
    });
  }
  const status = await runStatus(store, runId);
  if (status !== "running" && status !== "pending") {
    return { runId, before: status, markedUnknown: [], outcome: "finished", result: null };
  }
  const loaded = await loadRunApp(store, runId, grant);
  const ledger =
    loaded?.runtime.ledger ??
    new ToolLedger({ store, audit: new AuditWriter(store), tools: new ToolRegistry() });
  const marked = await ledger.recoverInterrupted({ taskId: runId });
  const markedUnknown = marked.map((call) => call.tool_call_id);
  if (!loaded) return { runId, before: status, markedUnknown, outcome: "no-app", result: null };
  const result = await loaded.runtime.recover(runId, loaded.graph);
  return { runId, before: status, markedUnknown, outcome: "recovered", result };
}

/**
 * The governed runs a killed process left behind: `running` (or `pending` for longer than a
 * lease) while nobody holds their thread — no lease, an expired one, or one whose owner was a
 * process of this host that no longer exists. Oldest first.
 */
export async function abandonedRuns(store: Store, now = Date.now()): Promise<string[]> {
  const rows = await sql<{
    id: string;
    status: string;
    created_at: number | string;
    lease_owner: string | null;
    lease_expires_at: number | string | null;
  }>`
    SELECT r.id, r.status, r.created_at, t.lease_owner, t.lease_expires_at
      FROM state_runs r
      JOIN state_run_grants g ON g.id = r.id
      LEFT JOIN state_threads t ON t.id = r.thread_id
     WHERE r.status IN ('running', 'pending')
     ORDER BY r.created_at, r.id`.execute(store.kysely);
  return rows.rows
    .filter((row) => {
      if (row.status === "pending" && Number(row.created_at) > now - DEFAULT_CALL_LEASE_MS) {
        return false; // just created: its starter is about to run it
      }
      if (row.lease_owner === null || row.lease_expires_at === null) return true;
      return Number(row.lease_expires_at) <= now || ownerIsDead(row.lease_owner);
    })
    .map((row) => row.id);
}

/** Recovers every abandoned run; a failure of one is reported with it, not thrown. */
export async function recoverAbandonedRuns(
  store: Store,
): Promise<(Recovery | { runId: string; error: { code: string; message: string } })[]> {
  const out: (Recovery | { runId: string; error: { code: string; message: string } })[] = [];
  for (const runId of await abandonedRuns(store)) {
    try {
      out.push(await recoverGovernedRun(store, runId));
    } catch (error) {
      const keel = toKeelError(error);
      out.push({ runId, error: { code: keel.code, message: keel.message } });
    }
  }
  return out;
}

async function runStatus(store: Store, runId: string): Promise<string> {
  const row = await sql<{ status: string }>`SELECT status FROM state_runs WHERE id = ${runId}`
    .execute(store.kysely)
    .then((r) => r.rows[0]);
  if (!row) {
    throw new KeelError("RUN_NOT_FOUND", `No run "${runId}".`, {
      details: { runId },
      hint: "`keel runs list` shows the runs.",
    });
  }
  return row.status;
}
