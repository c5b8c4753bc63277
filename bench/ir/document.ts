import type { IRDocumentInput } from "../../src/ir/index.js";

/**
 * A synthetic IR document of `size` nodes shaped like a real one: a chain of echo nodes, a rule
 * per node routing on state, and every few nodes a retry, a parallel fan-out or an interrupt.
 * At IR 1.1.0 it is written as Stargraph writes documents: `when` mapping sugar over template
 * facts, each rule's `node_id`, node `config`.
 */
export function syntheticDocument(
  size: number,
  version: "1.0.0" | "1.1.0" = "1.0.0",
): IRDocumentInput {
  const v11 = version === "1.1.0";
  const nodes = Array.from({ length: size }, (_, index) => ({
    id: `step_${index}`,
    kind: index === size - 1 ? "halt" : "echo",
    ...(v11 ? { config: { label: `Step ${index}` } } : {}),
  }));
  const rules = nodes.slice(0, -1).map((node, index) => {
    const next = `step_${index + 1}`;
    const then =
      index % 50 === 0
        ? [
            {
              kind: "parallel" as const,
              targets: [next, `step_${Math.min(index + 2, size - 1)}`],
              join: next,
            },
          ]
        : index % 20 === 0
          ? [
              {
                kind: "interrupt" as const,
                prompt: `Approve ${node.id}?`,
                timeout: "PT5M",
                on_timeout: `goto:${next}`,
              },
            ]
          : index % 10 === 0
            ? [{ kind: "retry" as const, target: node.id, backoff_ms: 100 }]
            : [{ kind: "goto" as const, target: next }];
    if (v11) {
      const when = index % 5 === 0 ? { node: node.id, severity: 5 } : { node: node.id };
      return { id: `rule.${node.id}`, when, then, node_id: node.id };
    }
    return {
      id: `rule.${node.id}`,
      when: `(node-id ${node.id}) (severity ?s&:(>= ?s ${index % 5}))`,
      then,
    };
  });
  return {
    ir_version: version,
    id: `graph:synthetic-${size}`,
    nodes,
    rules,
    state_schema: { message: "str", severity: "int" },
    governance: [{ id: "pack.routing", version: "1.0.0", requires: { api_version: "1" } }],
  };
}
