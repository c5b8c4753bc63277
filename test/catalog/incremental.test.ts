/**
 * `keel scan --changed` (and `-n`) against a full scan: over random sequences of edits, adds,
 * deletes, renames and touches, the incremental result stored in the database equals what a
 * full scan of the same tree finds (nodes, links and issues as sets).
 */
import { readdirSync, readFileSync, renameSync, rmSync, unlinkSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtInRegistry, runScan, type ScanResult, scanScope } from "../../src/catalog/index.js";
import { seededRandom } from "../../src/runtime/index.js";
import { openStore, type Store } from "../../src/store/index.js";
import { makeTree, writeTree } from "./tree.js";

const FOLDERS = [".claude/agents", ".claude/commands", ".claude/skills/x", "notes"];
const NAMES = ["deploy", "review", "plan", "Deploy", "build deploy"];

function randomFile(random: () => number, paths: readonly string[]): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const body = [
    `Run /${pick(["deploy", "review", "plan", "Deploy", "build-deploy"])} then ask @${pick(["reviewer", "plan", "ghost"])}.`,
    random() < 0.5 ? `See https://example.com/${Math.floor(random() * 3)}.` : "",
    random() < 0.3 ? "mail me@example.com" : "",
  ].join("\n");
  if (random() < 0.15) return `${body}\n`;
  if (random() < 0.1) return `  ---\n  name: broken\n  ---\n${body}\n`;
  const meta: string[] = ["  version: 1.0.0"];
  if (random() < 0.3 && paths.length > 0) meta.push(`  supersededBy: ${pick(paths)}`);
  if (random() < 0.3 && paths.length > 0) meta.push(`  related:\n    - ${pick(paths)}`);
  const description = random() < 0.1 ? "" : "description: something\n";
  return `---\nname: ${pick(NAMES)}\n${description}metadata:\n${meta.join("\n")}\n---\n${body}\n`;
}

function listFiles(root: string): string[] {
  return (readdirSync(root, { recursive: true, withFileTypes: true }) as import("node:fs").Dirent[])
    .filter((e) => e.isFile() && e.name.endsWith(".md"))
    .map((e) => join(e.parentPath, e.name).slice(root.length + 1))
    .filter((p) => !p.startsWith(".keel/"));
}

/** A scan as comparable sets: scan times and durations set aside. */
function comparable(result: ScanResult) {
  const sorted = (items: unknown[]) => items.map((item) => JSON.stringify(item)).sort();
  return {
    nodes: sorted(result.nodes),
    links: sorted(result.links.map((l) => ({ ...l, sources: [...l.sources].sort() }))),
    issues: sorted(result.issues),
  };
}

let root: string;
let store: Store;
let clock = Date.parse("2024-01-01T00:00:00Z");
// Every write gets a distinct modification time well before the scans (so stamps are trusted).
function write(path: string, text: string) {
  writeTree(root, { [path]: text });
  clock += 1000;
  utimesSync(join(root, path), clock / 1000, clock / 1000);
}

beforeAll(async () => {
  root = makeTree({});
  store = await openStore({ db: join(root, ".keel/keel.db") });
});
afterAll(async () => {
  await store.close();
  rmSync(root, { recursive: true, force: true });
});

describe("incremental scans equal full scans", () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`seed ${seed}: 10 rounds of random edits, --changed after each`, async () => {
      for (const path of listFiles(root)) unlinkSync(join(root, path));
      const random = seededRandom(seed);
      const registry = builtInRegistry();
      for (let i = 0; i < 6; i++)
        write(`${FOLDERS[i % FOLDERS.length]}/f${i}.md`, randomFile(random, []));
      await scanScope(store, { root, registry, mode: { kind: "full" } });
      let reused = 0;
      for (let round = 0; round < 10; round++) {
        const ops = 1 + Math.floor(random() * 3);
        for (let op = 0; op < ops; op++) {
          const paths = listFiles(root);
          const choice = random();
          const target = paths[Math.floor(random() * paths.length)];
          if (choice < 0.3 || !target) {
            write(
              `${FOLDERS[Math.floor(random() * FOLDERS.length)]}/n${round}-${op}.md`,
              randomFile(random, paths),
            );
          } else if (choice < 0.55) {
            write(target, randomFile(random, paths));
          } else if (choice < 0.7) {
            unlinkSync(join(root, target));
          } else if (choice < 0.85) {
            const to = `${FOLDERS[Math.floor(random() * FOLDERS.length)]}/r${round}-${op}.md`;
            renameSync(join(root, target), join(root, to));
          } else {
            // Same content, new modification time: re-read, found unchanged by hash.
            write(target, readFileSync(join(root, target), "utf8"));
          }
        }
        const incremental = await scanScope(store, { root, registry, mode: { kind: "changed" } });
        expect(incremental.incremental, "built-in rules are all incremental").toBe(true);
        reused += incremental.reused;
        const full = await runScan({ root, registry });
        const stored = await incremental.result();
        expect(comparable(stored), `seed ${seed} round ${round}`).toEqual(comparable(full.result));
        // Issues are stored in the order a full scan gives them (rules spliced in key order).
        expect(stored.issues, `seed ${seed} round ${round}`).toEqual(full.result.issues);
        expect(incremental.issues).toEqual(full.result.issues);
        expect(incremental.stats.linksCount).toBe(full.result.stats.linksCount);
      }
      // The comparison means something only if --changed actually reused nodes.
      expect(reused, `seed ${seed}`).toBeGreaterThan(0);
    });
  }

  it("--changed with nothing changed rewrites no row; with one file changed, only its rows", async () => {
    const registry = builtInRegistry();
    for (const path of listFiles(root)) unlinkSync(join(root, path));
    for (const name of ["a", "b", "c"]) {
      write(
        `notes/${name}.md`,
        `---\nname: ${name}\ndescription: ${name}\n---\nsee /a and /b, ask @c\n`,
      );
    }
    await scanScope(store, { root, registry, mode: { kind: "full" } });
    if (store.native.dialect !== "sqlite") throw new Error("this test reads SQLite row ids");
    const db = store.native.database;
    const rows = () => ({
      nodes: db.prepare("SELECT rowid, path FROM scan_nodes ORDER BY rowid").all(),
      links: db.prepare("SELECT id, source_path FROM scan_links ORDER BY id").all(),
      files: db.prepare("SELECT id, path FROM scan_files ORDER BY id").all(),
    });
    const before = rows();
    const quiet = await scanScope(store, { root, registry, mode: { kind: "changed" } });
    expect(quiet.unchanged).toBe(true);
    expect(quiet.reused).toBe(3);
    expect(rows()).toEqual(before);
    expect((await quiet.result()).nodes.map((n) => n.path)).toEqual([
      "notes/a.md",
      "notes/b.md",
      "notes/c.md",
    ]);

    write("notes/b.md", "---\nname: b\ndescription: b\n---\nsee /a only\n");
    const edited = await scanScope(store, { root, registry, mode: { kind: "changed" } });
    expect(edited.unchanged).toBe(false);
    expect(edited.reused).toBe(2);
    const after = rows() as { links: { id: number; source_path: string }[] } & ReturnType<
      typeof rows
    >;
    const kept = (list: unknown[]) =>
      list.filter((row) =>
        (before.links as unknown[]).some((b) => JSON.stringify(b) === JSON.stringify(row)),
      );
    // a.md and c.md's links keep their rows; b.md lost two links and kept one.
    expect(kept(after.links)).toHaveLength(after.links.length);
    expect(after.links).toHaveLength(before.links.length - 2);
    expect(after.files.filter((f) => (f as { path: string }).path !== "notes/b.md")).toEqual(
      before.files.filter((f) => (f as { path: string }).path !== "notes/b.md"),
    );
    expect(comparable(await edited.result())).toEqual(
      comparable((await runScan({ root, registry })).result),
    );
  });

  it("a rule that declares no incremental form keeps --changed on the whole graph, still equal to a full scan", async () => {
    const registry = builtInRegistry().register({
      kind: "rule",
      id: "count-links",
      version: "1.0.0",
      description: "one issue naming how many links the graph has",
      evaluate: ({ nodes, links }) => [
        {
          ruleId: "count-links",
          severity: "info",
          nodeIds: [nodes[0]?.path ?? "-"],
          message: `${links.length} links`,
        },
      ],
    });
    for (const path of listFiles(root)) unlinkSync(join(root, path));
    write("notes/a.md", "---\nname: a\n---\nsee /b\n");
    write("notes/b.md", "---\nname: b\n---\nsee /a\n");
    await scanScope(store, { root, registry, mode: { kind: "full" } });
    write("notes/b.md", "---\nname: b\n---\nsee /a and /c\n");
    const changed = await scanScope(store, { root, registry, mode: { kind: "changed" } });
    expect(changed.incremental).toBe(false);
    expect(changed.issues.find((i) => i.ruleId === "count-links")?.message).toBe("3 links");
    const stored = await changed.result();
    expect(comparable(stored)).toEqual(comparable((await runScan({ root, registry })).result));
  });

  it("a frontmatter detector drawing links from other nodes stays incremental and equal to a full scan, declared or not", async () => {
    // `replacedBy: <path>` draws `<path> supersedes this node`: a link from another source.
    const detector = (foreignSourceKeys?: string[]) => ({
      kind: "detector" as const,
      id: "replaced-by",
      version: "1.0.0",
      description: "replacedBy: the newer node supersedes this one",
      scope: "frontmatter" as const,
      emitsLinkKinds: ["supersedes" as const],
      defaultConfidence: "high" as const,
      ...(foreignSourceKeys ? { foreignSourceKeys } : {}),
      detect: ({
        node,
        frontmatter,
      }: {
        node: { path: string };
        frontmatter: Record<string, unknown>;
      }) =>
        typeof frontmatter.replacedBy === "string"
          ? [
              {
                source: frontmatter.replacedBy,
                target: node.path,
                kind: "supersedes" as const,
                confidence: "high" as const,
                sources: ["replaced-by"],
              },
            ]
          : [],
    });
    // A wrong declaration (`[]`) fails this test: the drawn links would be lost.
    for (const declared of [["replacedBy"], undefined]) {
      const registry = builtInRegistry().register(detector(declared));
      for (const path of listFiles(root)) unlinkSync(join(root, path));
      write("notes/old.md", "---\nname: old\nreplacedBy: notes/new.md\n---\nsee /new\n");
      write("notes/new.md", "---\nname: new\n---\nthe new one\n");
      write("notes/other.md", "---\nname: other\n---\nunrelated\n");
      await scanScope(store, { root, registry, mode: { kind: "full" } });
      // The drawn link's source changes; then the drawing node moves it elsewhere.
      for (const [path, text] of [
        ["notes/new.md", "---\nname: new\n---\nthe new one, edited /old\n"],
        ["notes/old.md", "---\nname: old\nreplacedBy: notes/other.md\n---\nsee /other\n"],
        ["notes/other.md", "---\nname: other\n---\nnow the replacement\n"],
      ] as const) {
        write(path, text);
        const changed = await scanScope(store, { root, registry, mode: { kind: "changed" } });
        expect(changed.incremental, `declared ${declared}`).toBe(true);
        const stored = await changed.result();
        expect(comparable(stored), `${declared} ${path}`).toEqual(
          comparable((await runScan({ root, registry })).result),
        );
        expect(stored.links.some((l) => l.sources.includes("replaced-by"))).toBe(true);
      }
    }
  });

  it("-n <path> re-reads one node and keeps the others", async () => {
    const registry = builtInRegistry();
    for (const path of listFiles(root)) unlinkSync(join(root, path));
    write("notes/a.md", "---\nname: a\ndescription: A\nmetadata:\n  version: 1.0.0\n---\nsee /b\n");
    write("notes/b.md", "---\nname: b\ndescription: B\nmetadata:\n  version: 1.0.0\n---\nbody\n");
    await scanScope(store, { root, registry, mode: { kind: "full" } });
    write("notes/a.md", "---\nname: a\ndescription: A\nmetadata:\n  version: 1.0.0\n---\nsee /c\n");
    const one = await scanScope(store, {
      root,
      registry,
      mode: { kind: "node", path: "notes/a.md" },
    });
    expect(one.reused).toBe(1);
    const oneResult = await one.result();
    expect(oneResult.links.map((l) => l.target)).toEqual(["/c"]);
    expect(comparable(oneResult)).toEqual(comparable((await runScan({ root, registry })).result));
    await expect(
      scanScope(store, { root, registry, mode: { kind: "node", path: "notes/zzz.md" } }),
    ).rejects.toThrow(/not a file any adapter claims/);
  });
});
