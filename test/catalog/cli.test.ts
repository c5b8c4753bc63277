/**
 * The catalog verbs through the real program, in this process: scan, list, show, check,
 * findings, graph, export, orphans, version, help; `--json` shapes checked against the spec's
 * schemas (read from ../shared/reference at test time).
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/index.js";
import { keelInProcess } from "../store/cli-in-process.js";
import { REPO, schemaProblems } from "./conformance-runner.js";
import { makeTree, md } from "./tree.js";

let root: string;
const keel = (...args: string[]) => keelInProcess(args, { cwd: root });
const json = async (...args: string[]) => {
  const run = await keel(...args, "--json");
  return { ...run, value: JSON.parse(run.stdout) as unknown };
};

beforeAll(async () => {
  root = makeTree({
    ".claude/agents/architect.md": md(
      "architect",
      "Run /deploy, ask @reviewer. See https://example.com/a.",
    ),
    ".claude/agents/reviewer.md": md("reviewer", "Reviews."),
    ".claude/commands/deploy.md": md("deploy", "Deploys.", {
      related: [".claude/agents/architect.md"],
    }),
    "notes/old.md": md("old", "Old.", { supersededBy: "notes/new.md" }),
    "notes/new.md": md("new", "New, calls /missing."),
  });
  const scan = await keel("scan");
  expect(scan.exitCode, scan.stderr).toBe(0);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("keel scan and the browse verbs", () => {
  it("scan prints a summary for people and a schema-valid ScanResult under --json", async () => {
    const human = await keel("scan");
    expect(human.stdout).toMatch(/^5 nodes, \d+ links, \d+ issues/);
    const { value, exitCode } = await json("scan");
    expect(exitCode).toBe(0);
    expect(schemaProblems("scan-result.schema.json", value)).toEqual([]);
  });

  it("list filters by kind and issues, sorts and limits; --json is an array of spec nodes", async () => {
    const all = await json("list");
    const nodes = all.value as { path: string }[];
    expect(nodes.map((n) => n.path)).toEqual([
      ".claude/agents/architect.md",
      ".claude/agents/reviewer.md",
      ".claude/commands/deploy.md",
      "notes/new.md",
      "notes/old.md",
    ]);
    for (const node of nodes) expect(schemaProblems("node.schema.json", node)).toEqual([]);
    expect(((await json("list", "--kind", "agent")).value as unknown[]).length).toBe(2);
    expect(
      ((await json("list", "--issue")).value as { path: string }[]).map((n) => n.path),
    ).toEqual(["notes/new.md", "notes/old.md"]);
    const top = (await json("list", "--sort-by", "links-in", "--limit", "1")).value as {
      path: string;
    }[];
    expect(top.map((n) => n.path)).toEqual([".claude/agents/architect.md"]);
    const bad = await keel("list", "--kind", "widget");
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("--kind must be one of");
  });

  it("show prints a node's weight, links and issues; a missing node exits 5", async () => {
    const { value } = await json("show", ".claude/agents/architect.md");
    const detail = value as {
      node: { path: string };
      linksOut: { target: string }[];
      linksIn: unknown[];
      weight: { tokens: { total: number } };
    };
    expect(detail.node.path).toBe(".claude/agents/architect.md");
    expect(detail.linksOut.map((l) => l.target).sort()).toEqual(["/deploy", "@reviewer"]);
    expect(detail.linksIn).toHaveLength(1);
    expect(detail.weight.tokens.total).toBeGreaterThan(0);
    const missing = await json("show", "nope.md");
    expect(missing.exitCode).toBe(5);
    expect(missing.value).toMatchObject({ ok: false, error: { code: "CATALOG_NODE_NOT_FOUND" } });
  });

  it("check prints the stored issues (spec issue shape), exit 1 only when one is an error", async () => {
    const { value, exitCode } = await json("check");
    const issues = value as { ruleId: string }[];
    expect(exitCode).toBe(0);
    expect(issues.map((i) => i.ruleId).sort()).toEqual(["broken-ref", "superseded"]);
    for (const issue of issues) expect(schemaProblems("issue.schema.json", issue)).toEqual([]);
  });

  it("graph draws ascii, mermaid and dot; an unknown format exits 2 naming the known ones", async () => {
    expect((await keel("graph")).stdout).toContain(".claude/agents/architect.md [agent]");
    expect((await keel("graph", "--format", "mermaid")).stdout).toMatch(/^flowchart LR\n/);
    expect((await keel("graph", "--format", "dot")).stdout).toMatch(/^digraph catalog \{/);
    const bad = await keel("graph", "--format", "svg");
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("ascii, mermaid, dot, json");
  });

  it("export selects nodes by query in json, md and mermaid; a bad query exits 2", async () => {
    const selected = (await keel("export", "kind:agent issue:any")).stdout;
    expect(JSON.parse(selected).nodes).toEqual([]);
    const agents = JSON.parse((await keel("export", "kind:agent")).stdout) as {
      nodes: { path: string }[];
      links: unknown[];
    };
    expect(agents.nodes.map((n) => n.path)).toEqual([
      ".claude/agents/architect.md",
      ".claude/agents/reviewer.md",
    ]);
    expect(agents.links).toHaveLength(2);
    expect((await keel("export", "path:notes/**", "--format", "md")).stdout).toContain("## Notes");
    expect((await keel("export", "*", "--format", "mermaid")).stdout).toMatch(/^flowchart LR/);
    const bad = await keel("export", "colour:red");
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('"colour:" is not a query key');
  });

  it("scan --compare-with reports what changed since a dump and leaves the database alone", async () => {
    const dump = join(root, "before.json");
    writeFileSync(dump, (await keel("scan", "--json")).stdout);
    writeFileSync(join(root, "notes/extra.md"), md("extra", "Extra."));
    const { value } = await json("scan", "--compare-with", dump);
    expect(value).toMatchObject({ nodes: { added: ["notes/extra.md"], removed: [], changed: [] } });
    expect(((await json("list")).value as unknown[]).length).toBe(5);
    rmSync(join(root, "notes/extra.md"));
    writeFileSync(join(root, "bad.json"), "{}");
    expect((await keel("scan", "--compare-with", join(root, "bad.json"))).exitCode).toBe(2);
    expect((await keel("scan", "--compare-with", join(root, "none.json"))).exitCode).toBe(5);
  });

  it("findings reports a summary made from an older body; orphans and reconcile follow a rename", async () => {
    const store = await openStore({ db: join(root, ".keel/keel.db") });
    try {
      await store.kysely
        .insertInto("state_summaries")
        .values({
          node_id: "notes/old.md",
          kind: "note",
          summarizer_action_id: "summarize-note",
          summarizer_version: "1",
          body_hash_at_generation: "0".repeat(64),
          generated_at: 1,
          summary_json: "{}",
        })
        .execute();
    } finally {
      await store.close();
    }
    const findings = (await json("findings")).value as { kind: string; nodeId: string }[];
    expect(findings).toMatchObject([{ kind: "stale-summary", nodeId: "notes/old.md" }]);
    renameSync(join(root, "notes/old.md"), join(root, "notes/older.md"));
    await keel("scan");
    expect((await json("orphans")).value).toEqual([
      { nodeId: "notes/old.md", rows: { state_summaries: 1 } },
    ]);
    expect(
      (await keel("orphans", "reconcile", "notes/gone.md", "--to", "notes/older.md")).exitCode,
    ).toBe(5);
    expect(
      (await keel("orphans", "reconcile", "notes/old.md", "--to", "notes/nowhere.md")).exitCode,
    ).toBe(5);
    const moved = await json("orphans", "reconcile", "notes/old.md", "--to", "notes/older.md");
    expect(moved.value).toMatchObject({ ok: true, moved: { state_summaries: 1 } });
    expect((await json("orphans")).value).toEqual([]);
    renameSync(join(root, "notes/older.md"), join(root, "notes/old.md"));
    await keel("scan");
  });

  it("a verb run in a subfolder works on the project found by walking up to .keel/", async () => {
    const inside = (...args: string[]) =>
      keelInProcess([...args, "--json"], { cwd: join(root, "notes") });
    const atRoot = JSON.parse((await keel("list", "--json")).stdout) as { path: string }[];
    const below = await inside("list");
    expect(below.exitCode, below.stderr).toBe(0);
    const paths = (JSON.parse(below.stdout) as { path: string }[]).map((n) => n.path);
    expect(paths).toEqual(atRoot.map((n) => n.path));
    expect(paths).toContain(".claude/agents/architect.md");
    // A scan from below scans the whole project, with paths relative to its root.
    const scan = await inside("scan");
    expect(scan.exitCode, scan.stderr).toBe(0);
    const show = await inside("show", "notes/new.md");
    expect(show.exitCode, show.stderr).toBe(0);
  });

  it("version prints the matrix; SKILL_MAP_JSON=1 means --json", async () => {
    const run = await keelInProcess(["version"], { cwd: root, env: { SKILL_MAP_JSON: "1" } });
    expect(JSON.parse(run.stdout)).toMatchObject({
      sm: expect.any(String),
      spec: "0.1.0",
      dbSchema: expect.any(Number),
    });
  });

  it("a scope never scanned: list and check exit 2 telling to run keel scan", async () => {
    const empty = makeTree({});
    try {
      const run = await keelInProcess(["check"], { cwd: empty });
      expect(run.exitCode).toBe(2);
      expect(run.stderr).toContain("keel scan");
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it("KEEL_DISABLE_ALL_RULES=1 (alias of SKILL_MAP_DISABLE_ALL_RULES) scans without issues", async () => {
    const run = await keelInProcess(["scan", "--json"], {
      cwd: root,
      env: { KEEL_DISABLE_ALL_RULES: "1" },
    });
    expect(JSON.parse(run.stdout).issues).toEqual([]);
    await keel("scan");
  });

  it("init writes .keel/catalog.json once (again with --force) and scans", async () => {
    const fresh = makeTree({ "notes/a.md": md("a", "A.") });
    try {
      const first = await keelInProcess(["init", "--json"], { cwd: fresh });
      expect(JSON.parse(first.stdout)).toMatchObject({
        ok: true,
        wroteConfig: true,
        stats: { nodesCount: 1 },
      });
      const again = await keelInProcess(["init", "--json", "--no-scan"], { cwd: fresh });
      expect(JSON.parse(again.stdout)).toMatchObject({ wroteConfig: false, stats: null });
      expect(readFileSync(join(fresh, ".keel/catalog.json"), "utf8")).toContain('"tokenize": true');
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });
});

describe("keel help", () => {
  it("--format json describes every verb of the program, with flags and exit codes", async () => {
    const { buildProgram } = await import("../../src/cli/program.js");
    const run = await keelInProcess(["help", "--format", "json"]);
    const surface = JSON.parse(run.stdout) as {
      verbs: { name: string; exitCodes: number[]; flags: { name: string }[] }[];
    };
    const names = buildProgram().commands.map((c) => c.name());
    expect(surface.verbs.map((v) => v.name)).toEqual(names);
    for (const verb of [
      "scan",
      "list",
      "show",
      "check",
      "findings",
      "graph",
      "export",
      "orphans",
      "init",
      "version",
      "help",
    ]) {
      expect(names).toContain(verb);
    }
    expect(surface.verbs.find((v) => v.name === "scan")).toMatchObject({ exitCodes: [0, 1, 2, 5] });
    expect(surface.verbs.find((v) => v.name === "scan")?.flags.map((f) => f.name)).toContain(
      "--changed",
    );
    const one = JSON.parse((await keelInProcess(["help", "scan", "--format", "json"])).stdout);
    expect(one.name).toBe("scan");
    expect((await keelInProcess(["help", "no-such-verb"])).exitCode).toBe(5);
  });

  it("docs/cli-reference.md is exactly `keel help --format md` (regenerate: npm run docs:cli)", async () => {
    const run = await keelInProcess(["help", "--format", "md"]);
    expect(readFileSync(join(REPO, "docs/cli-reference.md"), "utf8")).toBe(run.stdout);
  });

  it("package.json maps keel, sm and skill-map to the same bin", () => {
    const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as {
      bin: Record<string, string>;
    };
    expect(pkg.bin).toMatchObject({
      keel: "./bin/keel.js",
      sm: "./bin/keel.js",
      "skill-map": "./bin/keel.js",
    });
  });
});
