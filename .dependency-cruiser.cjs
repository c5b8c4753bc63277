/**
 * Layer rules from DESIGN.md: imports go downward only, and never in circles.
 * A layer may import from any layer listed after it in LAYERS (and from itself).
 */
const LAYERS = [
  ["cli", "server", "mcp"],
  ["agents", "jobs", "memory", "catalog"],
  ["runtime"],
  ["ir"],
  ["graph", "rules"],
  ["checkpoint"],
  ["store"],
  ["core"],
];

const forbidden = [
  {
    name: "no-circular",
    severity: "error",
    comment: "Circular imports make load order fragile; extract the shared piece downward.",
    from: {},
    to: { circular: true },
  },
];

LAYERS.forEach((group, level) => {
  const above = LAYERS.slice(0, level).flat();
  const peers = group;
  for (const layer of group) {
    const notAllowed = [...above, ...peers.filter((p) => p !== layer)];
    if (notAllowed.length === 0) continue;
    forbidden.push({
      name: `layer-${layer}`,
      severity: "error",
      comment: `src/${layer} may import only from layers below it (see DESIGN.md, Layers).`,
      from: { path: `^src/${layer}/` },
      to: { path: `^src/(${notAllowed.join("|")})/` },
    });
  }
});

// The engines do no I/O of their own (DESIGN.md): persistence reaches them through interfaces.
forbidden.push({
  name: "engines-are-pure",
  severity: "error",
  comment:
    "src/graph and src/rules are pure: they may use the checkpointer port (src/checkpoint/base) " +
    "but no store, database-backed saver or database driver.",
  from: { path: "^src/(graph|rules)/" },
  to: {
    path: "^src/store/|^src/checkpoint/(sqlite|postgres)/|node_modules/(better-sqlite3|pg|kysely)/",
  },
});

module.exports = {
  forbidden,
  options: {
    doNotFollow: { path: "node_modules" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    exclude: { path: "\\.test\\.ts$" },
  },
};
