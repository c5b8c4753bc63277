/**
 * `scan_*` written in one transaction on both dialects: what is stored reads back as the scan,
 * and a reader on another connection polling during a write sees the old scan or the new one,
 * never a mix.
 */
import { rmSync, unlinkSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { builtInRegistry, loadScan, runScan, scanScope } from "../../src/catalog/index.js";
import { loadNodesAt, loadNodesMentioning } from "../../src/catalog/store/load.js";
import { openStore } from "../../src/store/index.js";
import { postgresAvailable } from "../support/postgres.js";
import { createMigratedDatabase } from "../support/templates.js";
import { makeTree, md, writeTree } from "./tree.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function dialects(): Promise<{ name: string; db: () => Promise<string> }[]> {
  const list = [
    {
      name: "sqlite",
      db: async () => {
        const dir = makeTree({}, "keel-scan-db-");
        cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
        return join(dir, "keel.db");
      },
    },
  ];
  if (await postgresAvailable()) {
    list.push({
      name: "postgres",
      db: async () => {
        const created = await createMigratedDatabase("catalog_scan");
        cleanups.push(created.drop);
        return created.url;
      },
    });
  }
  return list;
}

const files = (count: number, tag: string) =>
  Object.fromEntries(
    Array.from({ length: count }, (_, i) => [
      `notes/${tag}-${i}.md`,
      md(`${tag}${i}`, `links /${tag}${(i + 1) % count} and @nobody`),
    ]),
  );

for (const dialect of await dialects()) {
  describe(`catalog scan on ${dialect.name}`, () => {
    it("stores a scan that loads back equal to what the scan found", async () => {
      const root = makeTree(files(12, "a"));
      cleanups.push(() => rmSync(root, { recursive: true, force: true }));
      const store = await openStore({ db: await dialect.db() });
      try {
        const result = await (
          await scanScope(store, { root, registry: builtInRegistry() })
        ).result();
        const loaded = await loadScan(store);
        expect(loaded?.nodes).toEqual(result.nodes);
        expect(loaded?.links).toEqual(result.links);
        expect(loaded?.issues).toEqual(result.issues);
        expect(loaded?.stats).toEqual(result.stats);
      } finally {
        await store.close();
      }
    });

    it("--changed reads nodes by path, by name and by a frontmatter key, and stays equal to a full scan", async () => {
      const root = makeTree({
        "notes/old.md": md("old", "see /new", { supersededBy: "notes/new.md" }),
        "notes/new.md": md("new", "plain"),
        "notes/odd_%.md": md("odd", "x", { "super_ded%By": "notes/new.md" }),
      });
      cleanups.push(() => rmSync(root, { recursive: true, force: true }));
      for (const name of ["old", "new", "odd_%"]) {
        const at = Date.now() / 1000 - 3600;
        utimesSync(join(root, `notes/${name}.md`), at, at);
      }
      const store = await openStore({ db: await dialect.db() });
      const registry = builtInRegistry();
      try {
        await scanScope(store, { root, registry });
        // LIKE's wildcards in a key are matched literally.
        const mentioning = await loadNodesMentioning(store, ["supersededBy"]);
        expect(mentioning.map((n) => n.path)).toEqual(["notes/old.md"]);
        const odd = await loadNodesMentioning(store, ["super_ded%By"]);
        expect(odd.map((n) => n.path)).toEqual(["notes/odd_%.md"]);
        expect(
          (await loadNodesAt(store, ["notes/new.md", "notes/none.md"])).map((n) => n.path),
        ).toEqual(["notes/new.md"]);
        // The superseding node is edited: the link its old version drew stays; rules see names.
        writeTree(root, { "notes/new.md": md("new", "now see /old") });
        const at = Date.now() / 1000 - 1800;
        utimesSync(join(root, "notes/new.md"), at, at);
        const changed = await scanScope(store, { root, registry, mode: { kind: "changed" } });
        expect(changed.incremental).toBe(true);
        const full = (await runScan({ root, registry })).result;
        const stored = await loadScan(store);
        expect(stored?.nodes).toEqual(full.nodes);
        expect(stored?.links).toEqual(full.links);
        expect(stored?.issues).toEqual(full.issues);
        expect(full.links.some((l) => l.kind === "supersedes")).toBe(true);
      } finally {
        await store.close();
      }
    });

    it("--changed writes only the rows that differ and reads back as a full scan", async () => {
      const root = makeTree({
        "notes/a.md": md("a", "see /b"),
        "notes/b.md": md("b", "see /c and @nobody"),
        "notes/c.md": md("c", "plain"),
        "notes/d.md": md("d", "see /c", { related: ["notes/e.md"] }),
        "notes/e.md": md("e", "see /a"),
      });
      cleanups.push(() => rmSync(root, { recursive: true, force: true }));
      // Stamps well in the past, so none is racy (a racy stamp is re-read on purpose).
      const age = (path: string, secondsAgo: number) => {
        const at = Date.now() / 1000 - secondsAgo;
        utimesSync(join(root, path), at, at);
      };
      for (const name of "abcde") age(`notes/${name}.md`, 3600);
      const store = await openStore({ db: await dialect.db() });
      const registry = builtInRegistry();
      const read = async () => ({
        nodes: (
          await sql<{
            path: string;
            scanned_at: string | number;
          }>`SELECT path, scanned_at FROM scan_nodes ORDER BY path`.execute(store.kysely)
        ).rows.map((r) => [r.path, Number(r.scanned_at)]),
        links: (
          await sql<{
            id: string | number;
            source_path: string;
            target_path: string;
          }>`SELECT id, source_path, target_path FROM scan_links ORDER BY id`.execute(store.kysely)
        ).rows.map((r) => [Number(r.id), r.source_path, r.target_path]),
        files: (
          await sql<{
            id: string | number;
            path: string;
          }>`SELECT id, path FROM scan_files ORDER BY id`.execute(store.kysely)
        ).rows.map((r) => [Number(r.id), r.path]),
      });
      try {
        await scanScope(store, { root, registry });
        const before = await read();
        const firstAt = before.nodes[0]?.[1];
        writeTree(root, {
          "notes/b.md": md("b", "see /a now"),
          "notes/f.md": md("f", "new, see /d"),
        });
        unlinkSync(join(root, "notes/e.md"));
        age("notes/b.md", 1800);
        age("notes/f.md", 1800);
        const changed = await scanScope(store, { root, registry, mode: { kind: "changed" } });
        expect(changed.unchanged).toBe(false);
        expect(changed.reused).toBe(3);
        const after = await read();
        // Untouched files keep their node rows (their scan time), link rows and stamp rows.
        const secondAt = after.nodes.find(([path]) => path === "notes/b.md")?.[1];
        expect(secondAt).not.toBe(firstAt);
        expect(after.nodes).toEqual([
          // Trigger links (/a) count into no node's links_in_count: a, c, d's rows are as they were.
          ["notes/a.md", firstAt],
          ["notes/b.md", secondAt],
          ["notes/c.md", firstAt],
          ["notes/d.md", firstAt],
          ["notes/f.md", secondAt],
        ]);
        const untouched = (row: (string | number)[]) =>
          ["notes/c.md", "notes/d.md", "notes/a.md"].includes(row[1] as string);
        expect(after.links.filter(untouched)).toEqual(before.links.filter(untouched));
        expect(after.links.map(([, source]) => source)).not.toContain("notes/e.md");
        expect(after.files.filter(untouched)).toEqual(before.files.filter(untouched));
        expect(after.files.map(([, path]) => path).sort()).toEqual([
          "notes/a.md",
          "notes/b.md",
          "notes/c.md",
          "notes/d.md",
          "notes/f.md",
        ]);
        // What is stored equals a full scan of the same files.
        const full = (await runScan({ root, registry })).result;
        const stored = await loadScan(store);
        expect(stored?.nodes).toEqual(full.nodes);
        expect(stored?.links).toEqual(full.links);
        expect(stored?.issues).toEqual(full.issues);
        // Nothing changed since: the stored rows stand, untouched.
        const quiet = await scanScope(store, { root, registry, mode: { kind: "changed" } });
        expect(quiet.unchanged).toBe(true);
        const again = await read();
        expect(again.links).toEqual(after.links);
        expect(again.files).toEqual(after.files);
      } finally {
        await store.close();
      }
    });

    it("a reader never sees half a scan", async () => {
      const root = makeTree(files(150, "a"));
      cleanups.push(() => rmSync(root, { recursive: true, force: true }));
      const db = await dialect.db();
      const writer = await openStore({ db });
      const reader = await openStore({ db });
      try {
        const registry = builtInRegistry();
        const first = await (await scanScope(writer, { root, registry })).result();
        writeTree(root, files(250, "b"));
        const next = await runScan({ root, registry, tokenize: false });
        const seen = new Set<string>();
        let writing = true;
        const poll = (async () => {
          while (writing) {
            // One statement: one snapshot of both tables, on either engine.
            const { rows } = await sql<{
              nodes: number;
              links: number;
            }>`SELECT (SELECT count(*) FROM scan_nodes) AS nodes, (SELECT count(*) FROM scan_links) AS links`.execute(
              reader.kysely,
            );
            const counts = `${Number(rows[0]?.nodes)}/${Number(rows[0]?.links)}`;
            seen.add(counts);
            await new Promise((resolve) => setTimeout(resolve, 1));
          }
        })();
        const { persistScan } = await import("../../src/catalog/index.js");
        await persistScan(writer, next.result, next.stamps, next.settingsHash);
        writing = false;
        await poll;
        const before = `${first.nodes.length}/${first.links.length}`;
        const after = `${next.result.nodes.length}/${next.result.links.length}`;
        expect([before, after]).toEqual(["150/300", "400/800"]);
        expect(seen.has(before)).toBe(true);
        for (const counts of seen) expect([before, after]).toContain(counts);
      } finally {
        await reader.close();
        await writer.close();
      }
    });
  });
}
