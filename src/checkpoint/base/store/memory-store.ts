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
} from "./store.js";

/**
 * A `BaseStore` in the process's memory (LangGraph's `InMemoryStore`): for tests and single-process
 * runs. Values are copied in and out, so a caller mutating an item does not change the store.
 *
 * @example
 * const graph = builder.compile({ store: new InMemoryStore() });
 * // in a node: await config.store.put(["notes"], "n1", { text: "…" });
 */
export class InMemoryStore extends BaseStore {
  private readonly items = new Map<string, Map<string, Item>>();

  async get(namespace: string[], key: string): Promise<Item | null> {
    const item = this.items.get(nsKey(namespace))?.get(key);
    return item ? copy(item) : null;
  }

  async search(namespacePrefix: string[], options: SearchOptions = {}): Promise<SearchItem[]> {
    const { filter, limit = 10, offset = 0 } = options;
    const found: Item[] = [];
    for (const bucket of this.items.values())
      for (const item of bucket.values())
        if (
          namespaceStartsWith(item.namespace, namespacePrefix) &&
          matchesStoreFilter(item.value, filter)
        )
          found.push(item);
    found.sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime());
    return found.slice(offset, offset + limit).map(copy);
  }

  async put(namespace: string[], key: string, value: Record<string, unknown>): Promise<void> {
    validateNamespace(namespace);
    validateValue(value);
    const id = nsKey(namespace);
    let bucket = this.items.get(id);
    if (!bucket) {
      bucket = new Map();
      this.items.set(id, bucket);
    }
    const now = new Date();
    const createdAt = bucket.get(key)?.createdAt ?? now;
    bucket.set(key, {
      value: structuredClone(value),
      key,
      namespace: [...namespace],
      createdAt,
      updatedAt: now,
    });
  }

  async delete(namespace: string[], key: string): Promise<void> {
    const id = nsKey(namespace);
    const bucket = this.items.get(id);
    bucket?.delete(key);
    if (bucket?.size === 0) this.items.delete(id);
  }

  async listNamespaces(options: ListNamespacesOptions = {}): Promise<string[][]> {
    const all: string[][] = [];
    for (const bucket of this.items.values()) {
      const first = bucket.values().next().value;
      if (first) all.push(first.namespace);
    }
    return selectNamespaces(all, options);
  }
}

function nsKey(namespace: string[]): string {
  return JSON.stringify(namespace);
}

function copy(item: Item): Item {
  return { ...item, value: structuredClone(item.value), namespace: [...item.namespace] };
}
