import type { NodeKind } from "../../store/index.js";
import type { ActionManifest } from "./manifest.js";
import { SUMMARY_SCHEMAS } from "./summary-schemas.js";

const HEADLINE: Record<NodeKind, string> = {
  skill: "whatItDoes: one sentence on what the skill accomplishes",
  agent: "whatItDoes: one sentence on what the agent does",
  command: "whatItDoes: one sentence on what the command does",
  hook: "whatItDoes: one sentence on what the hook does",
  note: "whatItCovers: one sentence on what the note covers",
};

function template(kind: NodeKind): string {
  return [
    `Summarize the ${kind} below for a catalog of agent extensions.`,
    "",
    "{{node}}",
    "",
    "Reply with one JSON object and nothing else. Besides the `safety` and `confidence`",
    "fields the rules above require, it has:",
    `- ${HEADLINE[kind]} (required);`,
    "- the optional fields of the report schema shown by `keel actions show {{action.id}}`",
    "  (lists of strings unless stated), e.g. relatedNodes and qualityNotes.",
    "",
  ].join("\n");
}

/**
 * The built-in summarizers, one per node kind (`skill-summarizer`, …): each applies to nodes of
 * its kind and its completed report is stored in `state_summaries`.
 */
export const BUILTIN_ACTIONS: readonly ActionManifest[] = (
  ["skill", "agent", "command", "hook", "note"] as const
).map((kind) => ({
  id: `${kind}-summarizer`,
  version: "1.0.0",
  description: `Summarizes a ${kind} node into the spec's ${kind} summary (stored in state_summaries).`,
  preconditions: { kinds: [kind] },
  expectedDurationSeconds: 60,
  promptTemplate: template(kind),
  reportSchema: SUMMARY_SCHEMAS[kind],
  runner: "cli",
}));

/** The node kind whose summary an action writes, when it is a built-in summarizer. */
export function summarizedKind(actionId: string): NodeKind | null {
  const match = /^(skill|agent|command|hook|note)-summarizer$/.exec(actionId);
  return match ? (match[1] as NodeKind) : null;
}
