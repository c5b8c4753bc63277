/**
 * The config's `roots` (the folders a scan walks) and `adapters` (which adapters classify files,
 * in which order), through scans stored in a real SQLite database and through `keel scan`.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtInRegistry, type CatalogConfig, scanScope } from "../../src/catalog/index.js";
import { openStore, type Store } from "../../src/store/index.js";
import { keelInProcess } from "../store/cli-in-process.js";
import { makeTree, md } from "./tree.js";

let root: string;
let store: Store;
beforeAll(async () => {
  root = makeTree({
    ".claude/agents/architect.md": md("architect", "Run /deploy."),
    ".claude/commands/deploy.md": md("deploy", "Deploys."),
    "docs/guide.md": md("guide", "Read me."),
    "docs/deep/more.md": md("more", "More."),
    "drafts/idea.md": md("idea", "Not yet."),
  });
  store = await openStore({ db: join(root, ".keel/keel.db") });
});
afterAll(async () => {
  await store.close();
  rmSync(root, { recursive: true, force: true });
});

const paths = async (config: CatalogConfig, mode: "full" | "changed" = "full") => {
  const scan = await scanScope(store, {
    root,
    registry: builtInRegistry(),
    config,
    mode: { kind: mode },
  });
  const result = await scan.result();
  return { roots: result.roots, nodes: result.nodes.map((n) => n.path) };
};

describe("config roots and adapters", () => {
  it("roots limit the walk to their folders; paths stay relative to the scope root", async () => {
    expect(await paths({})).toEqual({
      roots: ["."],
      nodes: [
        ".claude/agents/architect.md",
        ".claude/commands/deploy.md",
        "docs/deep/more.md",
        "docs/guide.md",
        "drafts/idea.md",
      ],
    });
    const limited = { roots: ["docs/", ".claude", "docs/deep", "./docs"] };
    const expected = {
      roots: [".claude", "docs"],
      nodes: [
        ".claude/agents/architect.md",
        ".claude/commands/deploy.md",
        "docs/deep/more.md",
        "docs/guide.md",
      ],
    };
    expect(await paths(limited)).toEqual(expected);
    // --changed after the roots changed drops what left them, as a full scan does.
    await paths({});
    expect(await paths(limited, "changed")).toEqual(expected);
    // A root that is not there walks nothing and is reported like an unreadable folder.
    const missing = await scanScope(store, {
      root,
      registry: builtInRegistry(),
      config: { roots: ["gone"] },
    });
    expect(missing.stats.nodesCount).toBe(0);
    expect(missing.issues.map((i) => [i.ruleId, i.nodeIds[0]])).toEqual([
      ["unreadable-file", "gone"],
    ]);
  });

  it("a root outside the scope is refused with CATALOG_CONFIG_INVALID", async () => {
    for (const bad of ["../elsewhere", "/etc", "docs/../.."]) {
      await expect(paths({ roots: [bad] })).rejects.toMatchObject({
        code: "CATALOG_CONFIG_INVALID",
      });
    }
  });

  it("keel scan reads roots and adapters from the config; an unknown adapter exits 2", async () => {
    const config = join(root, ".keel/catalog.json");
    try {
      writeFileSync(config, JSON.stringify({ roots: ["drafts"], adapters: ["claude"] }));
      const run = await keelInProcess(["scan", "--json"], { cwd: root });
      expect(run.exitCode, run.stderr).toBe(0);
      const result = JSON.parse(run.stdout) as { roots: string[]; nodes: { path: string }[] };
      expect(result.roots).toEqual(["drafts"]);
      expect(result.nodes.map((n) => n.path)).toEqual(["drafts/idea.md"]);
      writeFileSync(config, JSON.stringify({ adapters: ["claude", "obsidian"] }));
      const bad = await keelInProcess(["scan"], { cwd: root });
      expect(bad.exitCode).toBe(2);
      expect(bad.stderr).toMatch(/"obsidian", which no registered adapter has/);
    } finally {
      rmSync(config, { force: true });
    }
  });
});
