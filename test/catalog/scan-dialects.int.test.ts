/**
 * `scan_*` written in one transaction on both dialects: what is stored reads back as the scan,
 * and a reader on another connection polling during a write sees the old scan or the new one,
 * never a mix.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { builtInRegistry, loadScan, runScan, scanScope } from "../../src/catalog/index.js";
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
