import { KeelError } from "../core/index.js";
import type { JobsContext } from "./context.js";

/** An execution record as execution-record.schema.json spells it. */
export interface ExecutionRecord {
  readonly id: string;
  readonly kind: "action" | "audit";
  readonly extensionId: string;
  readonly extensionVersion: string;
  readonly nodeIds: string[];
  readonly contentHash: string | null;
  readonly status: "completed" | "failed" | "cancelled";
  readonly failureReason: string | null;
  readonly exitCode: number | null;
  readonly runner: string | null;
  readonly startedAt: number;
  readonly finishedAt: number;
  readonly durationMs: number | null;
  readonly tokensIn: number | null;
  readonly tokensOut: number | null;
  readonly reportPath: string | null;
  readonly jobId: string | null;
}

/** Filters of `keel history`. */
export interface HistoryFilter {
  readonly node?: string;
  readonly action?: string;
  readonly status?: "completed" | "failed" | "cancelled";
  /** Unix ms: only executions started at or after it. */
  readonly since?: number;
  readonly limit?: number;
}

/** `--since`: an ISO date/time, Unix milliseconds, or a span back from now (`30m`, `12h`, `7d`). */
export function parseSince(value: string, now: number): number {
  const span = /^(\d+)([mhd])$/.exec(value);
  if (span)
    return (
      now - Number(span[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[span[2] as "m" | "h" | "d"]
    );
  if (/^\d{10,}$/.test(value)) return Number(value);
  const parsed = Date.parse(value);
  if (Number.isNaN(parsed)) {
    throw new KeelError("INVALID_ARGUMENT", `--since "${value}" is not a date.`, {
      hint: "Use an ISO date (2026-01-31), Unix ms, or a span such as 7d, 12h, 30m.",
    });
  }
  return parsed;
}

const likeEscape = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Execution records, newest first. */
export async function listExecutions(
  ctx: JobsContext,
  filter: HistoryFilter = {},
): Promise<ExecutionRecord[]> {
  let query = ctx.store.kysely.selectFrom("state_executions").selectAll();
  if (filter.action) query = query.where("extension_id", "=", filter.action);
  if (filter.status) query = query.where("status", "=", filter.status);
  if (filter.since !== undefined) query = query.where("started_at", ">=", filter.since);
  if (filter.node) {
    query = query.where((eb) =>
      eb("node_ids_json", "like", `%${likeEscape(JSON.stringify(filter.node))}%`),
    );
  }
  const rows = await query
    .orderBy("started_at", "desc")
    .orderBy("id", "desc")
    .limit(filter.limit ?? 100)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    extensionId: r.extension_id,
    extensionVersion: r.extension_version,
    nodeIds: JSON.parse(r.node_ids_json) as string[],
    contentHash: r.content_hash,
    status: r.status,
    failureReason: r.failure_reason,
    exitCode: r.exit_code,
    runner: r.runner,
    startedAt: Number(r.started_at),
    finishedAt: Number(r.finished_at),
    durationMs: r.duration_ms === null ? null : Number(r.duration_ms),
    tokensIn: r.tokens_in,
    tokensOut: r.tokens_out,
    reportPath: r.report_path,
    jobId: r.job_id,
  }));
}

/** `keel history stats`. */
export interface HistoryStats {
  readonly perAction: {
    action: string;
    executions: number;
    failed: number;
    errorRate: number;
    tokensIn: number;
    tokensOut: number;
  }[];
  readonly perPeriod: { period: string; executions: number }[];
  readonly topNodes: { node: string; executions: number }[];
}

/**
 * Aggregates over the execution records (since `since` when given): tokens and error rate per
 * action, executions per month (UTC), the ten most frequent nodes. Aggregated in one pass over
 * the rows; the history of one project is small next to what a query plan would save.
 */
export async function historyStats(ctx: JobsContext, since?: number): Promise<HistoryStats> {
  let query = ctx.store.kysely
    .selectFrom("state_executions")
    .select(["extension_id", "status", "tokens_in", "tokens_out", "started_at", "node_ids_json"]);
  if (since !== undefined) query = query.where("started_at", ">=", since);
  const rows = await query.execute();
  const actions = new Map<
    string,
    { executions: number; failed: number; tokensIn: number; tokensOut: number }
  >();
  const periods = new Map<string, number>();
  const nodes = new Map<string, number>();
  for (const row of rows) {
    const a = actions.get(row.extension_id) ?? {
      executions: 0,
      failed: 0,
      tokensIn: 0,
      tokensOut: 0,
    };
    a.executions++;
    if (row.status !== "completed") a.failed++;
    a.tokensIn += Number(row.tokens_in ?? 0);
    a.tokensOut += Number(row.tokens_out ?? 0);
    actions.set(row.extension_id, a);
    const period = new Date(Number(row.started_at)).toISOString().slice(0, 7);
    periods.set(period, (periods.get(period) ?? 0) + 1);
    for (const node of JSON.parse(row.node_ids_json) as string[])
      nodes.set(node, (nodes.get(node) ?? 0) + 1);
  }
  return {
    perAction: [...actions]
      .map(([action, a]) => ({
        action,
        ...a,
        errorRate: a.executions === 0 ? 0 : a.failed / a.executions,
      }))
      .sort((x, y) => y.executions - x.executions || (x.action < y.action ? -1 : 1)),
    perPeriod: [...periods]
      .map(([period, executions]) => ({ period, executions }))
      .sort((x, y) => (x.period < y.period ? -1 : 1)),
    topNodes: [...nodes]
      .map(([node, executions]) => ({ node, executions }))
      .sort((x, y) => y.executions - x.executions || (x.node < y.node ? -1 : 1))
      .slice(0, 10),
  };
}
