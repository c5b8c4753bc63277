/**
 * The JSON Schema Stargraph 0.8.0 (Apache-2.0, KrakenNet/stargraph) writes for its node model, which
 * its structural hash covers once per node (see structural-hash.ts). It is interop data, kept byte
 * for byte — its description is that model's documentation — because a hash over any other text
 * would differ from the one Stargraph records.
 */
export const NODE_SPEC_SIGNATURE = Object.freeze({
  additionalProperties: false,
  description: [
    "Graph node descriptor.",
    "",
    "Attributes:",
    "    id: Node identifier, unique within the IR.",
    "    kind: Either a short kind registered in",
    "        :data:`stargraph.cli.run._NODE_FACTORIES`",
    "        (``echo``/``halt``/``passthrough``/``tool``/``broker``/",
    "        ``write_artifact``/``interrupt``/``ml``/``subgraph``/``dspy``)",
    "        or a ``module.path:ClassName`` reference imported via",
    "        :mod:`importlib`.",
    "    spec: Optional subgraph file path (relative to the IR YAML)",
    "        for ``kind: subgraph`` nodes. Resolved by",
    "        :class:`stargraph.nodes.subgraph.SubGraphNode` at construction.",
    "        ``None`` for non-subgraph nodes.",
    "    config: Optional per-node config dict. Forwarded as kwargs into",
    "        the node factory by",
    "        :func:`stargraph.cli.run._build_node_registry` so concrete node",
    "        classes (``BrokerNode``/``MLNode``/``WriteArtifactNode``)",
    "        can read their own config without sub-classing per call site.",
  ].join("\n"),
  properties: {
    id: { title: "Id", type: "string" },
    kind: { title: "Kind", type: "string" },
    spec: { anyOf: [{ type: "string" }, { type: "null" }], default: null, title: "Spec" },
    config: { additionalProperties: true, title: "Config", type: "object" },
  },
  required: ["id", "kind"],
  title: "NodeSpec",
  type: "object",
});
