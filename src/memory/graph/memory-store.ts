import {
  BaseStore,
  type Item,
  type ListNamespacesOptions,
  matchesStoreFilter,
  namespaceStartsWith,
  type SearchItem,
  type SearchOptions,
  selectNamespaces,
  validateNamespace,
  validateValue,
} from "../../checkpoint/base/store/index.js";
import { isKeelError, KeelError } from "../../core/index.js";
import type { Store } from "../../store/index.js";
import type { EventSource } from "../models/enums.js";
import { DecisionMemory, type DecisionMemoryOptions } from "../service/index.js";
import type { MemoryRecord } from "../store/record-shape.js";
import { memoryDb } from "../store/tables.js";

/** The target prefix of a store item's record (items are told apart from other decisions by it). */
export const STORE_ITEM_TARGET_PREFIX = "item:";
const RATIONALE = "Written through the graph store (BaseStore.put).";

/** What a store item's record holds in its `content`. */
interface ItemContent {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  /** When the item was first put (kept across versions). */
  created_at: string;
}

/** Options of a DecisionMemoryStore. */
export interface DecisionMemoryStoreOptions extends Omit<DecisionMemoryOptions, "namespace"> {
  /** Who writes the items (default `agent`; a `human_only` memory needs `user`). */
  source?: EventSource;
}

/**
 * LangGraph's `BaseStore` on the decision memory: `config.store` of a graph (and of the
 * prebuilt agent) becomes durable, audited long-term memory in the kernel database.
 *
 * An item is an active decision record: its memory namespace is the labels joined by `.`
 * (labels cannot hold `.`), its target `item:<key as JSON>`, its `content` the JSON of
 * `{ namespace, key, value, created_at }`. A put on an existing key supersedes the item (the
 * versions stay in the record's history); a delete deprecates it. `search` with a `query` ranks
 * by the memory's search (full text, fused with vectors when the memory has an embedder) and
 * sets `score`; without one it lists newest update first. Every change is a Keel audit event.
 *
 * @example
 * const store = new DecisionMemoryStore(await openStore());
 * const graph = builder.compile({ store });
 * // in a node: await config.store.put(["users", "u1"], "prefs", { tea: true });
 */
export class DecisionMemoryStore extends BaseStore {
  readonly memory: DecisionMemory;
  readonly #store: Store;
  readonly #source: EventSource;

  constructor(store: Store, options: DecisionMemoryStoreOptions = {}) {
    super();
    this.#store = store;
    this.#source = options.source ?? "agent";
    this.memory = new DecisionMemory(store, options);
  }

  async get(namespace: string[], key: string): Promise<Item | null> {
    validateNamespace(namespace);
    validateKey(key);
    const record = await this.memory.active(targetOf(key), namespaceOf(namespace));
    return record ? itemOf(record) : null;
  }

  async put(namespace: string[], key: string, value: Record<string, unknown>): Promise<void> {
    validateNamespace(namespace);
    validateKey(key);
    validateValue(value);
    const memoryNamespace = namespaceOf(namespace);
    const target = targetOf(key);
    // A concurrent put may take the target between the read and the write: read again.
    for (let attempt = 0; ; attempt++) {
      const current = await this.memory.active(target, memoryNamespace);
      const content = JSON.stringify({
        namespace,
        key,
        value,
        created_at: current ? contentOf(current).created_at : new Date().toISOString(),
      } satisfies ItemContent);
      const fields = {
        title: `Store item ${JSON.stringify(key)}`,
        target,
        rationale: RATIONALE,
        namespace: memoryNamespace,
        content,
        source: this.#source,
      };
      try {
        if (current) await this.memory.supersede({ ...fields, old_decision_ids: [current.id] });
        else await this.memory.record(fields);
        return;
      } catch (error) {
        const raced =
          isKeelError(error) &&
          (error.code === "MEMORY_CONFLICT" || error.code === "MEMORY_INVARIANT");
        if (!raced || attempt >= 4) throw error;
      }
    }
  }

  async delete(namespace: string[], key: string): Promise<void> {
    validateNamespace(namespace);
    validateKey(key);
    const record = await this.memory.active(targetOf(key), namespaceOf(namespace));
    if (!record) return;
    try {
      await this.memory.deprecate(record.id, this.#source);
    } catch (error) {
      // Deleted or replaced meanwhile: a delete of what is gone does nothing.
      if (!(isKeelError(error) && error.code === "MEMORY_INVARIANT")) throw error;
    }
  }

  async search(namespacePrefix: string[], options: SearchOptions = {}): Promise<SearchItem[]> {
    const { filter, limit = 10, offset = 0, query } = options;
    const namespaces = (await this.#itemNamespaces()).filter((ns) =>
      namespaceStartsWith(ns, namespacePrefix),
    );
    if (query !== undefined && query.trim() !== "") {
      const scored: SearchItem[] = [];
      for (const ns of namespaces) {
        const hits = await this.memory.search({
          query,
          namespace: namespaceOf(ns),
          mode: "strict",
          limit: 50,
        });
        const ids = hits
          .filter((h) => h.target.startsWith(STORE_ITEM_TARGET_PREFIX))
          .map((h) => h.id);
        const scores = new Map(hits.map((h) => [h.id, h.score]));
        for (const id of ids) {
          const item = itemOf(await this.memory.get(id));
          if (matchesStoreFilter(item.value, filter))
            scored.push({ ...item, score: scores.get(id) ?? 0 });
        }
      }
      scored.sort((a, b) => (b.score ?? 0) - (a.score ?? 0));
      return scored.slice(offset, offset + limit);
    }
    const found: SearchItem[] = [];
    const pageSize = 200;
    if (namespaces.length === 0) return found;
    for (let page = 0; found.length < offset + limit; page++) {
      const rows = await memoryDb(this.#store)
        .selectFrom("state_memory_records")
        .select("id")
        .where("kind", "=", "decision")
        .where("status", "=", "active")
        .where(
          "namespace",
          "in",
          namespaces.map((ns) => namespaceOf(ns)),
        )
        .where("target", "like", `${STORE_ITEM_TARGET_PREFIX}%`)
        .orderBy("created_at", "desc")
        .orderBy("seq", "desc")
        .limit(pageSize)
        .offset(page * pageSize)
        .execute();
      for (const row of rows) {
        const item = itemOf(await this.memory.get(row.id));
        if (matchesStoreFilter(item.value, filter)) found.push(item);
      }
      if (rows.length < pageSize) break;
    }
    return found.slice(offset, offset + limit);
  }

  async listNamespaces(options: ListNamespacesOptions = {}): Promise<string[][]> {
    return selectNamespaces(await this.#itemNamespaces(), options);
  }

  /** Every namespace that holds an item. */
  async #itemNamespaces(): Promise<string[][]> {
    const rows = await memoryDb(this.#store)
      .selectFrom("state_memory_records")
      .select("namespace")
      .distinct()
      .where("kind", "=", "decision")
      .where("status", "=", "active")
      .where("target", "like", `${STORE_ITEM_TARGET_PREFIX}%`)
      .execute();
    return rows.map((row) => row.namespace.split("."));
  }
}

function namespaceOf(namespace: string[]): string {
  const problems = namespace
    .map((label, i) => (label.trim() === label ? null : `/${i} ("${label}")`))
    .filter((p) => p !== null);
  if (problems.length > 0) {
    throw new KeelError(
      "STORE_INVALID",
      `Invalid store namespace for the decision memory: ${problems.join(", ")} begins or ends with whitespace.`,
      {
        details: { namespace, problems },
        hint: "Trim the labels (the memory trims namespaces, so they would not read back the same).",
      },
    );
  }
  return namespace.join(".");
}

function targetOf(key: string): string {
  return `${STORE_ITEM_TARGET_PREFIX}${JSON.stringify(key)}`;
}

function validateKey(key: unknown): asserts key is string {
  if (typeof key !== "string" || key === "") {
    throw new KeelError("STORE_INVALID", "A store key must be a non-empty string.", {
      details: { actual: typeof key },
      hint: 'Name the item, e.g. "prefs".',
    });
  }
}

function contentOf(record: MemoryRecord): ItemContent {
  return JSON.parse(record.content) as ItemContent;
}

function itemOf(record: MemoryRecord): Item {
  const content = contentOf(record);
  return {
    value: content.value,
    key: content.key,
    namespace: content.namespace,
    createdAt: new Date(content.created_at),
    updatedAt: new Date(record.created_at),
  };
}
