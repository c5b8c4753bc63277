import type { Store } from "../store/index.js";

/** A probabilistic or time-dependent finding (not a rule's issue). */
export interface Finding {
  kind: "stale-summary";
  nodeId: string;
  message: string;
  /** 0–1: how sure the finding is (a stale summary is certain: its body hash moved). */
  confidence: number;
  detectedAt: number;
  data: Record<string, unknown>;
}

/**
 * Findings over the stored scan: summaries generated from a body that has since changed
 * (`state_summaries.body_hash_at_generation` ≠ the node's `body_hash`).
 */
export async function listFindings(
  store: Store,
  options: { since?: number; threshold?: number } = {},
): Promise<Finding[]> {
  const rows = await store.kysely
    .selectFrom("state_summaries")
    .innerJoin("scan_nodes", "scan_nodes.path", "state_summaries.node_id")
    .select([
      "state_summaries.node_id",
      "state_summaries.summarizer_action_id",
      "state_summaries.body_hash_at_generation",
      "state_summaries.generated_at",
      "scan_nodes.body_hash",
      "scan_nodes.scanned_at",
    ])
    .execute();
  const findings: Finding[] = [];
  for (const row of rows) {
    if (row.body_hash_at_generation === row.body_hash) continue;
    findings.push({
      kind: "stale-summary",
      nodeId: row.node_id,
      message: `The ${row.summarizer_action_id} summary of ${row.node_id} was made from an older body; regenerate it.`,
      confidence: 1,
      detectedAt: Number(row.scanned_at),
      data: { summarizer: row.summarizer_action_id, generatedAt: Number(row.generated_at) },
    });
  }
  return findings.filter(
    (f) =>
      (options.since === undefined || f.detectedAt >= options.since) &&
      (options.threshold === undefined || f.confidence >= options.threshold),
  );
}
