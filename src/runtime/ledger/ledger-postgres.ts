import { ARTIFACT_COLUMNS, artifactValues } from "../artifacts/artifact-store.js";
import {
  ARTIFACT_PLACEHOLDERS,
  AUDIT_LOCK_CTE,
  auditAppendCtes,
  auditParams,
} from "../audit/audit-postgres.js";
import type { AuditRecord } from "../audit/audit-record.js";
import type { AuditWriter } from "../audit/audit-writer.js";
import type { ToolCallStatus } from "../contracts/enums.js";
import { castPlaceholders, numbered, type PostgresPool } from "../db/postgres-native.js";
import type { ArtifactsTable, ToolCallsTable } from "../db/tables.js";
import {
  MUTABLE_COLUMNS,
  MUTABLE_TYPES,
  mutableValues,
  TOOL_CALL_COLUMNS,
  TOOL_CALL_TYPES,
  toolCallValues,
} from "./ledger-columns.js";
import type { LedgerWrites } from "./ledger-writes.js";

const FIND_LIVE = `SELECT * FROM state_tool_calls
WHERE tool_name = $1 AND idempotency_key = $2 AND status <> 'failed'`;

/** Artifact, call and event appear only when the head was advanced (`FROM head`). */
const INSERT_ATTEMPTED = numbered(`WITH ${AUDIT_LOCK_CTE}, ${auditAppendCtes()}, art AS (
  INSERT INTO state_artifacts (${ARTIFACT_COLUMNS}) SELECT ${ARTIFACT_PLACEHOLDERS} FROM head
), call AS (
  INSERT INTO state_tool_calls (${TOOL_CALL_COLUMNS.join(", ")})
  SELECT ${castPlaceholders(TOOL_CALL_TYPES)} FROM head
)
SELECT seq FROM head`);

/**
 * The row moves only if the head exists and the status is still the expected one; the head
 * advances (and the event and artifact appear) only if the row moved.
 */
function transitionSql(withArtifact: boolean): string {
  const set = MUTABLE_COLUMNS.map((column, i) => `${column} = ?::${MUTABLE_TYPES[i]}`).join(", ");
  const art = withArtifact
    ? `, art AS (
  INSERT INTO state_artifacts (${ARTIFACT_COLUMNS}) SELECT ${ARTIFACT_PLACEHOLDERS} FROM head
)`
    : "";
  return numbered(`WITH ${AUDIT_LOCK_CTE}, upd AS (
  UPDATE state_tool_calls SET ${set}
  WHERE id = ?::text AND status = ?::text AND EXISTS (SELECT 1 FROM old)
  RETURNING id
), ${auditAppendCtes("EXISTS (SELECT 1 FROM upd)")}${art}
SELECT (SELECT count(*) FROM old)::int AS has_head, (SELECT count(*) FROM head)::int AS applied`);
}

const TRANSITION = transitionSql(false);
const TRANSITION_WITH_ARTIFACT = transitionSql(true);

/**
 * The ledger on the pg pool: each write is ONE statement (data-modifying CTEs), so one round trip
 * and one implicit transaction, prepared once per connection by name. The audit chain's head
 * row lock inside the statement serialises appenders across connections and machines.
 */
export class PostgresLedgerWrites implements LedgerWrites {
  readonly #pool: PostgresPool;
  readonly #audit: AuditWriter;

  constructor(pool: PostgresPool, audit: AuditWriter) {
    this.#pool = pool;
    this.#audit = audit;
  }

  async findLive(toolName: string, idempotencyKey: string): Promise<ToolCallsTable | undefined> {
    const result = await this.#pool.query<ToolCallsTable>({
      name: "keel_ledger_find_live",
      text: FIND_LIVE,
      values: [toolName, idempotencyKey],
    });
    return result.rows[0];
  }

  async insertAttempted(
    call: ToolCallsTable,
    request: ArtifactsTable,
    audit: AuditRecord,
  ): Promise<void> {
    const values = [...auditParams(audit), ...artifactValues(request), ...toolCallValues(call)];
    const query = { name: "keel_ledger_attempted", text: INSERT_ATTEMPTED, values };
    if ((await this.#pool.query(query)).rows.length === 1) return;
    // No chain head yet (new database, or after `keel db reset`): create it and write again.
    await this.#audit.ensureHead();
    if ((await this.#pool.query(query)).rows.length !== 1) {
      throw new Error("the audit chain head vanished while the call was being recorded");
    }
  }

  async transition(
    next: ToolCallsTable,
    from: ToolCallStatus,
    artifact: ArtifactsTable | null,
    audit: AuditRecord,
  ): Promise<boolean> {
    const values = [
      ...mutableValues(next),
      next.id,
      from,
      ...auditParams(audit),
      ...(artifact ? artifactValues(artifact) : []),
    ];
    const query = artifact
      ? { name: "keel_ledger_transition_artifact", text: TRANSITION_WITH_ARTIFACT, values }
      : { name: "keel_ledger_transition", text: TRANSITION, values };
    let row = (await this.#pool.query<{ has_head: number; applied: number }>(query)).rows[0];
    if (row?.has_head === 0) {
      await this.#audit.ensureHead();
      row = (await this.#pool.query<{ has_head: number; applied: number }>(query)).rows[0];
    }
    return row?.applied === 1;
  }
}
