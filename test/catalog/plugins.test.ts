/**
 * Plugins from the scope's plugin folders: a real plugin written here (an adapter, a detector
 * and a rule as ES modules) is discovered, its manifest checked, its extensions imported and
 * run by a scan into a real SQLite database and by the real `keel scan`; broken, incompatible,
 * disabled and clashing plugins are reported and leave the registry as it was. The manifest
 * schema is checked against the spec package's own (read from ../shared/reference).
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  builtInRegistry,
  type CatalogConfig,
  discoverPlugins,
  loadPlugins,
  manifestProblems,
  pluginFolders,
  scanScope,
  scopeRegistry,
} from "../../src/catalog/index.js";
import { openStore } from "../../src/store/index.js";
import { keelInProcess } from "../store/cli-in-process.js";
import { specAjv } from "./conformance-runner.js";
import { makeTree, md } from "./tree.js";

const manifest = (id: string, extensions: string[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id, version: "1.2.0", specCompat: "^0.1.0", extensions, ...extra });

// The plugin under test: Obsidian-like vault notes, [[wiki]] links between them, and a rule
// that reports vault notes nothing links to.
const VAULT_PLUGIN = {
  ".keel/plugins/vault/plugin.json": manifest("vault", [
    "extensions/adapter.mjs",
    "extensions/wikilink.mjs",
    "extensions/rules.mjs",
  ]),
  ".keel/plugins/vault/extensions/adapter.mjs": `export default {
  kind: "adapter", id: "vault", version: "1.0.0", description: "vault/**/*.md are notes",
  classify: (path) => (path.startsWith("vault/") && path.endsWith(".md") ? "note" : null),
};`,
  ".keel/plugins/vault/extensions/wikilink.mjs": `export default {
  kind: "detector", id: "wikilink", version: "1.0.0", description: "[[page]] links",
  scope: "body", emitsLinkKinds: ["references"], defaultConfidence: "medium",
  detect: ({ node, body }) => [...body.matchAll(/\\[\\[([^\\]]+)\\]\\]/g)].map((m) => ({
    source: node.path, target: "vault/" + m[1] + ".md", kind: "references",
    confidence: "medium", sources: ["wikilink"],
  })),
};`,
  ".keel/plugins/vault/extensions/rules.mjs": `export const unlinked = {
  kind: "rule", id: "vault-unlinked", version: "1.0.0", description: "vault notes nothing links to",
  evaluate: ({ nodes }) => nodes
    .filter((n) => n.adapter === "vault" && n.linksInCount === 0)
    .map((n) => ({ ruleId: "vault-unlinked", severity: "info", nodeIds: [n.path], message: n.path + " is not linked" })),
};`,
};

let root: string;
beforeAll(() => {
  root = makeTree({
    ...VAULT_PLUGIN,
    ".keel/catalog.json": JSON.stringify({ adapters: ["vault", "claude"] }),
    ".claude/agents/architect.md": md("architect", "Plans."),
    "vault/home.md": md("home", "See [[ideas]] and [[missing]]."),
    "vault/ideas.md": md("ideas", "Back to [[home]]."),
    "vault/lonely.md": md("lonely", "Nobody links here."),
  });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("plugins", () => {
  it("a plugin's adapter, detector and rule run in a scan stored in SQLite", async () => {
    // The config's adapters put the plugin's first: the Claude adapter takes any .md as a note.
    const { registry, plugins } = await scopeRegistry(root, { adapters: ["vault", "claude"] });
    expect(plugins.map((p) => [p.id, p.status, p.statusReason])).toEqual([
      ["vault", "enabled", null],
    ]);
    expect(
      registry
        .all()
        .filter((e) => e.pluginId === "vault")
        .map((e) => `${e.kind}:${e.id}`),
    ).toEqual(["adapter:vault", "detector:wikilink", "rule:vault-unlinked"]);
    const store = await openStore({ db: join(root, ".keel/keel.db") });
    try {
      const scan = await scanScope(store, { root, registry });
      const result = await scan.result();
      expect(result.adapters).toEqual(["vault", "claude"]);
      const vault = result.nodes.filter((n) => n.adapter === "vault");
      expect(vault.map((n) => [n.path, n.kind])).toEqual([
        ["vault/home.md", "note"],
        ["vault/ideas.md", "note"],
        ["vault/lonely.md", "note"],
      ]);
      const wiki = result.links.filter((l) => l.sources.includes("wikilink"));
      expect(wiki.map((l) => `${l.source}→${l.target}:${l.confidence}`)).toEqual([
        "vault/home.md→vault/ideas.md:medium",
        "vault/home.md→vault/missing.md:medium",
        "vault/ideas.md→vault/home.md:medium",
      ]);
      // The built-in broken-ref rule sees the plugin's links like any other.
      expect(
        result.issues.filter((i) => i.ruleId === "broken-ref").map((i) => i.data?.target),
      ).toContain("vault/missing.md");
      expect(
        result.issues.filter((i) => i.ruleId === "vault-unlinked").map((i) => i.nodeIds),
      ).toEqual([["vault/lonely.md"]]);
      // Without the plugin, the Claude adapter claims the vault's files as its notes.
      const bare = await scanScope(store, { root, registry: builtInRegistry() });
      expect((await bare.result()).nodes.find((n) => n.path === "vault/home.md")?.adapter).toBe(
        "claude",
      );
    } finally {
      await store.close();
    }
  });

  it("keel scan loads the scope's plugins; config plugins.<id>.enabled false leaves one out", async () => {
    const run = await keelInProcess(["scan", "--json"], { cwd: root });
    expect(run.exitCode, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { adapters: string[]; issues: { ruleId: string }[] };
    expect(result.adapters).toEqual(["vault", "claude"]);
    expect(result.issues.some((i) => i.ruleId === "vault-unlinked")).toBe(true);
    writeFileSync(
      join(root, ".keel/catalog.json"),
      JSON.stringify({ plugins: { vault: { enabled: false } } }),
    );
    try {
      const off = await keelInProcess(["scan", "--json"], { cwd: root });
      expect(off.exitCode, off.stderr).toBe(0);
      expect((JSON.parse(off.stdout) as { adapters: string[] }).adapters).toEqual(["claude"]);
      const { plugins } = await scopeRegistry(root, {
        plugins: { vault: { enabled: false } },
      } as CatalogConfig);
      expect(plugins[0]?.status).toBe("disabled");
    } finally {
      writeFileSync(
        join(root, ".keel/catalog.json"),
        JSON.stringify({ adapters: ["vault", "claude"] }),
      );
    }
  });

  it("bad plugins are reported with a reason and register nothing", async () => {
    const scope = makeTree({
      // no specCompat
      ".keel/plugins/a-invalid/plugin.json": JSON.stringify({
        id: "a-invalid",
        version: "1.0.0",
        extensions: ["x.mjs"],
      }),
      ".keel/plugins/b-future/plugin.json": manifest("b-future", ["x.mjs"], {
        specCompat: ">=1.0.0",
      }),
      ".keel/plugins/c-not-json/plugin.json": "{ nope",
      // One good extension and one that is no extension: neither registers.
      ".keel/plugins/d-half/plugin.json": manifest("d-half", ["good.mjs", "bad.mjs"]),
      ".keel/plugins/d-half/good.mjs": `export default { kind: "rule", id: "d-good", version: "1", description: "d", evaluate: () => [] };`,
      ".keel/plugins/d-half/bad.mjs": `export default { kind: "widget", id: "d-bad", version: "1", description: "d" };`,
      // Its detector takes a built-in's id.
      ".keel/plugins/e-clash/plugin.json": manifest("e-clash", ["slash.mjs"]),
      ".keel/plugins/e-clash/slash.mjs": `export default { kind: "detector", id: "slash", version: "9", description: "mine",
        scope: "body", emitsLinkKinds: ["invokes"], defaultConfidence: "high", detect: () => [] };`,
      ".keel/plugins/f-throws/plugin.json": manifest("f-throws", ["boom.mjs"]),
      ".keel/plugins/f-throws/boom.mjs": `throw new Error("boom at import");`,
      ".keel/plugins/g-escape/plugin.json": manifest("g-escape", ["../d-half/good.mjs"]),
      // The spec's folder is read too.
      // An action manifest (JSON, the jobs module's) beside the rule is passed over.
      ".skill-map/plugins/h-spec/plugin.json": manifest("h-spec", ["r.mjs", "summarize.json"]),
      ".skill-map/plugins/h-spec/summarize.json": JSON.stringify({ kind: "action", id: "h-sum" }),
      ".skill-map/plugins/h-spec/r.mjs": `export default { kind: "rule", id: "h-rule", version: "1", description: "h", evaluate: () => [] };`,
    });
    try {
      const before = builtInRegistry().fingerprint();
      const { registry, plugins } = await scopeRegistry(scope, {});
      const status = Object.fromEntries(plugins.map((p) => [p.id, [p.status, p.statusReason]]));
      expect(status["a-invalid"]?.[0]).toBe("invalid-manifest");
      expect(status["a-invalid"]?.[1]).toMatch(/specCompat/);
      expect(status["b-future"]).toEqual([
        "incompatible-spec",
        'specCompat ">=1.0.0" does not include spec 0.1.0, which Keel implements: install a version of the plugin for spec 0.1.0',
      ]);
      expect(status["c-not-json"]?.[0]).toBe("invalid-manifest");
      expect(status["d-half"]?.[0]).toBe("load-error");
      expect(status["d-half"]?.[1]).toMatch(/bad\.mjs.*kind "widget"/);
      expect(status["e-clash"]).toEqual([
        "load-error",
        'a detector with id "slash" is already registered',
      ]);
      expect(status["f-throws"]?.[1]).toMatch(/could not be imported: boom at import/);
      expect(status["g-escape"]?.[1]).toMatch(/outside the plugin folder/);
      expect(status["h-spec"]).toEqual(["enabled", null]);
      expect(registry.rules().map((r) => r.id)).toContain("h-rule");
      expect(registry.rules().map((r) => r.id)).not.toContain("d-good");
      expect(registry.detectors().find((d) => d.id === "slash")?.pluginId).toBeUndefined();
      // Everything but h-spec's rule is as the built-ins left it.
      expect(registry.fingerprint()).toBe(before.replace(/$/, ",h-rule@1"));
      // The CLI names each plugin it could not use on stderr and scans on.
      const run = await keelInProcess(["scan"], { cwd: scope });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/plugin b-future not loaded \(incompatible-spec\)/);
      expect(run.stderr).toMatch(/plugin e-clash not loaded \(load-error\)/);
    } finally {
      rmSync(scope, { recursive: true, force: true });
    }
  });

  it("the manifest schema accepts and refuses what the spec's PluginManifest does", () => {
    const spec = specAjv().getSchema(
      "https://skill-map.dev/spec/v0/plugins-registry.schema.json#/$defs/PluginManifest",
    );
    if (!spec) throw new Error("the spec package has no PluginManifest");
    const samples: unknown[] = [
      { id: "ok", version: "1.0.0", specCompat: "^0.1.0", extensions: ["a.mjs"] },
      { id: "Bad-Case", version: "1", specCompat: "*", extensions: ["a.mjs"] },
      { id: "ok", version: "1", specCompat: "*", extensions: [] },
      { id: "ok", version: "1", specCompat: "*", extensions: ["a"], extra: true },
      { id: "ok", version: "1", specCompat: "*", extensions: ["a"], storage: { mode: "kv" } },
      {
        id: "ok",
        version: "1",
        specCompat: "*",
        extensions: ["a"],
        storage: { mode: "dedicated" },
      },
      {
        id: "ok",
        version: "1",
        specCompat: "*",
        extensions: ["a"],
        storage: { mode: "dedicated", tables: ["t"], migrations: ["001.sql"] },
      },
      { id: "ok", version: "1", specCompat: "*", extensions: ["a"], homepage: "not a uri" },
      { id: "a-b-c", version: "1", extensions: ["a"] },
      { id: "ok", version: 1, specCompat: "*", extensions: ["a"] },
      "plugin",
    ];
    for (const sample of samples) {
      expect(manifestProblems(sample).length === 0, JSON.stringify(sample)).toBe(
        spec(sample) === true,
      );
    }
    // Keel's documented readings (one manifest for every module): seed 000's api_version and
    // packs, and a plugin without extensions (storage or packs only) needs no specCompat.
    const keelOnly: unknown[] = [
      { id: "ok", version: "1", specCompat: "*", extensions: ["a"], api_version: "1" },
      { id: "ok", version: "1", packs: { "pack.a": "a.clp" } },
      { id: "ok", version: "1", storage: { mode: "kv" } },
    ];
    for (const sample of keelOnly) {
      expect(spec(sample), JSON.stringify(sample)).toBe(false);
      expect(manifestProblems(sample), JSON.stringify(sample)).toEqual([]);
    }
  });

  it("discovery alone imports nothing; loading twice into one registry is refused per plugin", async () => {
    const plugins = discoverPlugins(pluginFolders(root));
    expect(plugins.map((p) => p.status)).toEqual(["enabled"]);
    const registry = builtInRegistry();
    await loadPlugins(registry, plugins);
    const again = discoverPlugins(pluginFolders(root));
    await loadPlugins(registry, again);
    expect(again[0]?.status).toBe("load-error");
    expect(registry.adapters().map((a) => a.id)).toEqual(["claude", "vault"]);
    // The config's adapters choose and order them; an id nobody registered is refused.
    expect(
      registry
        .selectAdapters(["vault"])
        .adapters()
        .map((a) => a.id),
    ).toEqual(["vault"]);
    expect(() => registry.selectAdapters(["vault", "obsidian"])).toThrow(
      expect.objectContaining({ code: "CATALOG_CONFIG_INVALID" }),
    );
  });
});
