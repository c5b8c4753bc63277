import type { ErrorDetail } from "../contracts/primitives.js";
import type { RetryPolicy, Step } from "../contracts/task.js";
import { isoFromMs } from "../db/codec.js";
import type { StepsTable } from "../db/tables.js";

/** A step row as the seed-003 Step. */
export function stepFromRow(row: StepsTable): Step {
  return {
    step_id: row.id,
    task_id: row.run_id,
    name: row.name,
    status: row.status,
    attempt: Number(row.attempt),
    max_attempts: Number(row.max_attempts),
    retry_policy: JSON.parse(row.retry_policy_json) as RetryPolicy,
    input: JSON.parse(row.input_json) as Record<string, unknown>,
    checkpoint: JSON.parse(row.checkpoint_json) as Record<string, unknown>,
    output:
      row.output_json === null ? null : (JSON.parse(row.output_json) as Record<string, unknown>),
    idempotency_key: row.idempotency_key,
    started_at: row.started_at === null ? null : isoFromMs(Number(row.started_at)),
    ended_at: row.ended_at === null ? null : isoFromMs(Number(row.ended_at)),
    error: row.error_json === null ? null : (JSON.parse(row.error_json) as ErrorDetail),
  };
}

/** A JSON object for a step's `input`/`output`: objects as they are, anything else wrapped. */
export function asJsonObject(value: unknown): Record<string, unknown> {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  }
  return value === undefined ? {} : { value: JSON.parse(JSON.stringify(value)) as unknown };
}
