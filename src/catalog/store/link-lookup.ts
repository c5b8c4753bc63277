import type { Store } from "../../store/index.js";
import type { CatalogLink, TriggerUse } from "../model.js";
import { sqliteLinkRows } from "./load.js";
import { rowLink } from "./rows.js";

/** The columns stored links can be looked up by (each has an index). */
export type LinkLookup = "source_path" | "target_path" | "normalized_trigger";

const LOOKUP_CHUNK = 500;

/**
 * The stored links whose `column` is one of `values`, with their row ids (in row order), read
 * through the column's index: what `--changed` reads instead of the whole graph.
 */
export async function loadLinksWhere(
  store: Store,
  column: LinkLookup,
  values: Iterable<string>,
): Promise<{ link: CatalogLink; id: number }[]> {
  const all = [...new Set(values)];
  const found: { link: CatalogLink; id: number }[] = [];
  for (let start = 0; start < all.length; start += LOOKUP_CHUNK) {
    const chunk = all.slice(start, start + LOOKUP_CHUNK);
    const rows =
      store.native.dialect === "sqlite"
        ? sqliteLinkRows(
            store.native.database,
            `WHERE ${column} IN (${chunk.map(() => "?").join(", ")})`,
            chunk,
          )
        : await store.kysely
            .selectFrom("scan_links")
            .selectAll()
            .where(column, "in", chunk)
            .orderBy("id")
            .execute();
    for (const row of rows) found.push({ link: rowLink(row), id: Number(row.id) });
  }
  return found;
}

/** How many stored links leave and reach each of `paths` (for nodes new to the graph). */
export async function countLinksAt(
  store: Store,
  paths: readonly string[],
): Promise<{ out: Map<string, number>; in: Map<string, number> }> {
  const out = new Map<string, number>();
  const into = new Map<string, number>();
  for (const { link } of await loadLinksWhere(store, "source_path", paths))
    out.set(link.source, (out.get(link.source) ?? 0) + 1);
  for (const { link } of await loadLinksWhere(store, "target_path", paths))
    into.set(link.target, (into.get(link.target) ?? 0) + 1);
  return { out, in: into };
}

/**
 * The stored links invoking one of `triggers`, as three short columns read through the
 * trigger's index: a popular trigger can have thousands of links, and decoding each whole row
 * (its JSON included) made `--changed` spend most of its time in `trigger-collision`.
 */
export async function loadTriggerUses(
  store: Store,
  triggers: Iterable<string>,
): Promise<TriggerUse[]> {
  const all = [...new Set(triggers)];
  const uses: TriggerUse[] = [];
  for (let start = 0; start < all.length; start += LOOKUP_CHUNK) {
    const chunk = all.slice(start, start + LOOKUP_CHUNK);
    const rows =
      store.native.dialect === "sqlite"
        ? (store.native.database
            .prepare(
              `SELECT normalized_trigger, source_path, target_path FROM scan_links
               WHERE normalized_trigger IN (${chunk.map(() => "?").join(", ")})`,
            )
            .raw(true)
            .all(...chunk) as [string, string, string][])
        : (
            await store.kysely
              .selectFrom("scan_links")
              .select(["normalized_trigger", "source_path", "target_path"])
              .where("normalized_trigger", "in", chunk)
              .execute()
          ).map((row) => [row.normalized_trigger ?? "", row.source_path, row.target_path] as const);
    for (const [normalizedTrigger, source, target] of rows)
      uses.push({ normalizedTrigger, source, target });
  }
  return uses;
}

/**
 * How many stored links invoke each of `triggers` with each spelling (target), counted by the
 * database: `[trigger, target, count]`. With `sources`, only links leaving those sources count.
 * A popular trigger has thousands of links but a spelling or two: what decides whether it is
 * claimed ambiguously, without reading every link.
 */
export async function countTriggerTargets(
  store: Store,
  triggers: Iterable<string>,
  sources?: Iterable<string>,
): Promise<[string, string, number][]> {
  const all = [...new Set(triggers)];
  const from = sources ? [...new Set(sources)] : undefined;
  if (from && from.length === 0) return [];
  const counts: [string, string, number][] = [];
  for (let start = 0; start < all.length; start += LOOKUP_CHUNK) {
    const chunk = all.slice(start, start + LOOKUP_CHUNK);
    for (let at = 0; at < (from?.length ?? 1); at += LOOKUP_CHUNK) {
      const only = from?.slice(at, at + LOOKUP_CHUNK);
      if (store.native.dialect === "sqlite") {
        const marks = (list: readonly string[]) => list.map(() => "?").join(", ");
        const rows = store.native.database
          .prepare(
            `SELECT normalized_trigger, target_path, count(*) FROM scan_links
             WHERE normalized_trigger IN (${marks(chunk)})
             ${only ? `AND source_path IN (${marks(only)})` : ""}
             GROUP BY normalized_trigger, target_path`,
          )
          .raw(true)
          .all(...chunk, ...(only ?? [])) as [string, string, number][];
        counts.push(...rows);
        continue;
      }
      let query = store.kysely
        .selectFrom("scan_links")
        .select((eb) => [
          "normalized_trigger",
          "target_path",
          eb.fn.countAll<number | string>().as("count"),
        ])
        .where("normalized_trigger", "in", chunk);
      if (only) query = query.where("source_path", "in", only);
      for (const row of await query.groupBy(["normalized_trigger", "target_path"]).execute())
        counts.push([row.normalized_trigger ?? "", row.target_path, Number(row.count)]);
    }
  }
  return counts;
}
