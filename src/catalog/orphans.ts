import { sql } from "kysely";
import { compareCodePoints, KeelError } from "../core/index.js";
import type { Store } from "../store/index.js";

/** A path that history rows point at but no scanned node has. */
export interface Orphan {
  nodeId: string;
  /** Rows per table (`state_jobs`, `state_executions`, `state_summaries`, …). */
  rows: Record<string, number>;
}

// The state_ tables that name a node by its path, and how.
const SINGLE = ["state_jobs", "state_summaries", "state_enrichment", "state_plugin_kv"] as const;

/**
 * History rows whose node is gone: jobs, summaries, enrichment and plugin data keyed by a node
 * path, and executions listing one, where no `scan_nodes` row has that path.
 */
export async function findOrphans(store: Store): Promise<Orphan[]> {
  const nodes = new Set(
    (await store.kysely.selectFrom("scan_nodes").select("path").execute()).map((r) => r.path),
  );
  const found = new Map<string, Record<string, number>>();
  const add = (nodeId: string, table: string, count: number) => {
    if (nodeId === "" || nodes.has(nodeId)) return;
    const rows = found.get(nodeId) ?? {};
    rows[table] = (rows[table] ?? 0) + count;
    found.set(nodeId, rows);
  };
  for (const table of SINGLE) {
    const rows = await store.kysely
      .selectFrom(table)
      .select(["node_id", sql<number>`count(*)`.as("n")])
      .groupBy("node_id")
      .execute();
    for (const row of rows) add(row.node_id, table, Number(row.n));
  }
  for (const row of await store.kysely
    .selectFrom("state_executions")
    .select("node_ids_json")
    .execute()) {
    for (const id of JSON.parse(row.node_ids_json) as string[]) add(id, "state_executions", 1);
  }
  return [...found]
    .map(([nodeId, rows]) => ({ nodeId, rows }))
    .sort((a, b) => compareCodePoints(a.nodeId, b.nodeId));
}

/**
 * Moves history rows from an orphaned path to a node's new path after a rename, in one
 * transaction. The new path must be a scanned node; the old one must have orphaned rows.
 */
export async function reconcileOrphan(
  store: Store,
  from: string,
  to: string,
): Promise<Record<string, number>> {
  const target = await store.kysely
    .selectFrom("scan_nodes")
    .select("path")
    .where("path", "=", to)
    .executeTakeFirst();
  if (!target) {
    throw new KeelError("CATALOG_NODE_NOT_FOUND", `${to} is not a node of the last scan.`, {
      hint: "Run `keel scan` first, and give the new path as `keel list` prints it.",
      details: { path: to },
    });
  }
  const orphan = (await findOrphans(store)).find((o) => o.nodeId === from);
  if (!orphan) {
    throw new KeelError("CATALOG_ORPHAN_NOT_FOUND", `No history rows are orphaned under ${from}.`, {
      hint: "`keel orphans` lists the orphaned paths.",
      details: { path: from },
    });
  }
  return store.transaction(async (tx) => {
    const moved: Record<string, number> = {};
    for (const table of SINGLE) {
      const result = await tx
        .updateTable(table)
        .set({ node_id: to })
        .where("node_id", "=", from)
        .executeTakeFirst();
      const count = Number(result.numUpdatedRows);
      if (count > 0) moved[table] = count;
    }
    const executions = await tx
      .selectFrom("state_executions")
      .select(["id", "node_ids_json"])
      .execute();
    let count = 0;
    for (const row of executions) {
      const ids = JSON.parse(row.node_ids_json) as string[];
      if (!ids.includes(from)) continue;
      const next = [...new Set(ids.map((id) => (id === from ? to : id)))];
      await tx
        .updateTable("state_executions")
        .set({ node_ids_json: JSON.stringify(next) })
        .where("id", "=", row.id)
        .execute();
      count += 1;
    }
    if (count > 0) moved.state_executions = count;
    return moved;
  });
}
