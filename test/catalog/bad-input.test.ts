/**
 * Files a scan cannot use: each becomes an `unreadable-file` issue (or is skipped), never a
 * crash; a scan that fails to store leaves the previous scan as it was.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import {
  type Adapter,
  builtInRegistry,
  ExtensionRegistry,
  loadScan,
  persistScan,
  runScan,
} from "../../src/catalog/index.js";
import { openStore } from "../../src/store/index.js";
import { REPO } from "./conformance-runner.js";
import { makeTree, md } from "./tree.js";

const roots: string[] = [];
function tree(files: Record<string, string | Buffer>): string {
  const root = makeTree(files);
  roots.push(root);
  return root;
}
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

const scan = (root: string, extra: Partial<Parameters<typeof runScan>[0]> = {}) =>
  runScan({ root, registry: builtInRegistry(), tokenize: false, ...extra });

const unreadable = (result: Awaited<ReturnType<typeof scan>>["result"]) =>
  result.issues
    .filter((i) => i.ruleId === "unreadable-file")
    .map((i) => [i.nodeIds[0], i.data?.reason]);

describe("bad input", () => {
  it("a binary file named .md and a file that is not UTF-8 are issues, not nodes", async () => {
    const root = tree({
      "notes/ok.md": md("ok", "fine"),
      "notes/image.md": Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x1a, 0x0a]),
      "notes/latin1.md": Buffer.from("caf\xe9 cr\xe8me\n", "latin1"),
    });
    const { result } = await scan(root);
    expect(result.nodes.map((n) => n.path)).toEqual(["notes/ok.md"]);
    expect(unreadable(result)).toEqual([
      ["notes/image.md", "binary"],
      ["notes/latin1.md", "invalid-utf8"],
    ]);
    expect(result.stats).toMatchObject({ filesWalked: 3, filesSkipped: 2 });
  });

  it("a 50 MB markdown file is not read: one too-large issue", async () => {
    const root = tree({ "notes/ok.md": md("ok", "fine") });
    writeFileSync(join(root, "notes/huge.md"), Buffer.alloc(50 * 1024 * 1024, "a"));
    const { result } = await scan(root);
    expect(result.nodes.map((n) => n.path)).toEqual(["notes/ok.md"]);
    expect(unreadable(result)).toEqual([["notes/huge.md", "too-large"]]);
    expect(result.issues.find((i) => i.ruleId === "unreadable-file")?.message).toMatch(
      /50\.0 MB, over the 8\.0 MB/,
    );
  });

  it("symbolic-link loops: skipped by default; followed (scan.followSymlinks), walked once and reported", async () => {
    const root = tree({ "notes/a.md": md("a", "A") });
    symlinkSync("..", join(root, "notes/up"));
    symlinkSync("self.md", join(root, "notes/self.md"));
    const plain = await scan(root);
    expect(plain.result.nodes.map((n) => n.path)).toEqual(["notes/a.md"]);
    expect(unreadable(plain.result)).toEqual([]);
    const followed = await scan(root, { followSymlinks: true });
    expect(followed.result.nodes.map((n) => n.path)).toEqual(["notes/a.md"]);
    expect(unreadable(followed.result)).toEqual([
      ["notes/self.md", "symlink-loop"],
      ["notes/up", "symlink-loop"],
    ]);
  });

  it("a file deleted while the scan runs is reported as vanished, and the scan completes", async () => {
    const root = tree({ "notes/a.md": md("a", "A"), "notes/b.md": md("b", "B") });
    // An adapter that deletes b.md when it classifies it: between the walk and the read.
    const deleting: Adapter = {
      kind: "adapter",
      id: "deleting",
      version: "1.0.0",
      description: "deletes notes/b.md as it classifies it",
      classify(path) {
        if (path === "notes/b.md" && existsSync(join(root, path))) unlinkSync(join(root, path));
        return path.endsWith(".md") ? "note" : null;
      },
    };
    const registry = new ExtensionRegistry().register(deleting);
    const { result } = await runScan({ root, registry, tokenize: false });
    expect(result.nodes.map((n) => n.path)).toEqual(["notes/a.md"]);
    expect(unreadable(result)).toEqual([["notes/b.md", "vanished"]]);
  });

  it("an unreadable file (permission denied) is an issue; the rest is scanned", () => {
    const root = tree({ "notes/ok.md": md("ok", "fine"), "notes/secret.md": md("secret", "shh") });
    chmodSync(join(root, "notes/secret.md"), 0o000);
    for (const dir of [root, join(root, "notes")]) chmodSync(dir, 0o777);
    chmodSync(join(root, "notes/ok.md"), 0o644);
    // Root reads any file: the scan runs as an unprivileged user when the tests run as root.
    const asRoot = process.getuid?.() === 0;
    const command = asRoot ? "setpriv" : process.execPath;
    const args = [
      ...(asRoot ? ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath] : []),
      join(REPO, "bin/keel.js"),
      "scan",
      "--json",
    ];
    const run = spawnSync(command, args, {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1", KEEL_DATABASE_URL: "" },
    });
    expect(run.status, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as Awaited<ReturnType<typeof scan>>["result"];
    expect(result.nodes.map((n) => n.path)).toEqual(["notes/ok.md"]);
    expect(unreadable(result)).toEqual([["notes/secret.md", "permission-denied"]]);
  });

  it("a scan that fails while being stored leaves the previous scan intact (one transaction)", async () => {
    const root = tree({ "notes/a.md": md("a", "A"), "notes/b.md": md("b", "B") });
    const store = await openStore({ db: join(root, ".keel/keel.db") });
    try {
      const first = await scan(root);
      await persistScan(store, first.result, first.stamps, first.settingsHash);
      writeFileSync(join(root, "notes/c.md"), md("c", "C"));
      // The database refuses c.md's row (a trigger), after the old rows were deleted and a.md
      // and b.md inserted again in the same transaction.
      await sql`CREATE TRIGGER fail_c BEFORE INSERT ON scan_nodes WHEN NEW.path = 'notes/c.md' BEGIN SELECT RAISE(ABORT, 'injected failure'); END`.execute(
        store.kysely,
      );
      const second = await scan(root);
      expect(second.result.nodes).toHaveLength(3);
      await expect(
        persistScan(store, second.result, second.stamps, second.settingsHash),
      ).rejects.toThrow(/injected failure/);
      const stored = await loadScan(store);
      expect(stored?.nodes.map((n) => n.path)).toEqual(["notes/a.md", "notes/b.md"]);
      expect(stored?.scannedAt).toBe(first.result.scannedAt);
    } finally {
      await store.close();
    }
  });

  it("a malformed frontmatter block (YAML error, a list) is a frontmatter-malformed issue", async () => {
    const root = tree({
      "notes/bad-yaml.md": "---\nname: [unclosed\ndescription: x\n---\nbody\n",
      "notes/list.md": "---\n- a\n- b\n---\nbody\n",
    });
    const { result } = await scan(root);
    expect(result.nodes.map((n) => n.path)).toEqual(["notes/bad-yaml.md", "notes/list.md"]);
    expect(result.issues.map((i) => [i.ruleId, i.nodeIds[0], i.data?.hint])).toEqual([
      ["frontmatter-malformed", "notes/bad-yaml.md", "yaml-syntax"],
      ["frontmatter-malformed", "notes/list.md", "not-a-mapping"],
    ]);
  });

  it("a missing scope root is refused with a clear error", async () => {
    await expect(scan(join(REPO, "no-such-folder"))).rejects.toThrow(
      /does not exist or is not a folder/,
    );
  });
});
