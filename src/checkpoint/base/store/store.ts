import { KeelError } from "../../../core/index.js";

/** A stored value: a JSON object under `namespace` / `key`. Same shape as LangGraph's `Item`. */
export interface Item {
  value: Record<string, unknown>;
  key: string;
  namespace: string[];
  createdAt: Date;
  updatedAt: Date;
}

/** A search result (`score` is set only by stores that rank by a query). */
export interface SearchItem extends Item {
  score?: number;
}

/** Options of `search`: `filter` matches value fields (`{ tag: "x" }`, `{ n: { $gt: 2 } }`). */
export interface SearchOptions {
  filter?: Record<string, unknown>;
  limit?: number;
  offset?: number;
  /** Natural-language query; stores without an index ignore it. */
  query?: string;
}

/** Options of `listNamespaces`. */
export interface ListNamespacesOptions {
  prefix?: string[];
  suffix?: string[];
  /** Namespaces longer than this are cut to it (and deduplicated). */
  maxDepth?: number;
  limit?: number;
  offset?: number;
}

/**
 * Long-term memory shared by a graph's runs and threads (LangGraph's `BaseStore`): JSON objects
 * filed under hierarchical namespaces. A graph compiled with `{ store }` hands it to every node as
 * `config.store`. `InMemoryStore` keeps items in the process; the kernel database's store keeps
 * them across restarts.
 *
 * @example
 * await store.put(["users", "u1", "memories"], "m1", { text: "likes tea" });
 * const item = await store.get(["users", "u1", "memories"], "m1");
 * const found = await store.search(["users", "u1"], { filter: { text: "likes tea" } });
 */
export abstract class BaseStore {
  /** The item, or null. */
  abstract get(namespace: string[], key: string): Promise<Item | null>;
  /** Items under a namespace prefix matching `filter`, newest update first. */
  abstract search(namespacePrefix: string[], options?: SearchOptions): Promise<SearchItem[]>;
  /** Creates or replaces an item (`index` is accepted for LangGraph compatibility; unused). */
  abstract put(
    namespace: string[],
    key: string,
    value: Record<string, unknown>,
    index?: false | string[],
  ): Promise<void>;
  /** Removes an item (nothing happens when it does not exist). */
  abstract delete(namespace: string[], key: string): Promise<void>;
  /** The namespaces that hold items, sorted. */
  abstract listNamespaces(options?: ListNamespacesOptions): Promise<string[][]>;

  start(): void | Promise<void> {}
  stop(): void | Promise<void> {}
}

/** Refuses a namespace LangGraph refuses too, naming every problem. */
export function validateNamespace(namespace: unknown): asserts namespace is string[] {
  const problems: string[] = [];
  if (!Array.isArray(namespace) || namespace.length === 0) problems.push("it is empty");
  else {
    namespace.forEach((label, i) => {
      if (typeof label !== "string" || label === "")
        problems.push(`/${i} is not a non-empty string`);
      else if (label.includes(".")) problems.push(`/${i} ("${label}") contains "."`);
    });
    if (namespace[0] === "langgraph") problems.push('the root label "langgraph" is reserved');
  }
  if (problems.length > 0)
    throw new KeelError("STORE_INVALID", `Invalid store namespace: ${problems.join("; ")}.`, {
      details: { namespace, problems },
      hint: 'Use non-empty labels without ".", e.g. ["users", "u1", "memories"].',
    });
}

/** Validates a value: a plain JSON object. */
export function validateValue(value: unknown): asserts value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new KeelError("STORE_INVALID", "A store value must be an object.", {
      details: { actual: Array.isArray(value) ? "array" : typeof value },
      hint: "Wrap it: { value: … }.",
    });
}

/** True when `value` matches every condition of `filter` (equality, or `$eq $ne $gt $gte $lt $lte`). */
export function matchesStoreFilter(
  value: Record<string, unknown>,
  filter: Record<string, unknown> | undefined,
): boolean {
  if (!filter) return true;
  for (const [field, condition] of Object.entries(filter)) {
    const actual = value[field];
    if (isOperatorObject(condition)) {
      for (const [op, expected] of Object.entries(condition))
        if (!compare(op, actual, expected)) return false;
    } else if (JSON.stringify(actual) !== JSON.stringify(condition)) return false;
  }
  return true;
}

function isOperatorObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.keys(value).length > 0 &&
    Object.keys(value).every((k) => k.startsWith("$"))
  );
}

function compare(op: string, actual: unknown, expected: unknown): boolean {
  const same = JSON.stringify(actual) === JSON.stringify(expected);
  if (op === "$eq") return same;
  if (op === "$ne") return !same;
  if (
    typeof actual !== typeof expected ||
    (typeof actual !== "number" && typeof actual !== "string")
  )
    return false;
  const a = actual as number | string;
  const b = expected as number | string;
  if (op === "$gt") return a > b;
  if (op === "$gte") return a >= b;
  if (op === "$lt") return a < b;
  if (op === "$lte") return a <= b;
  throw new KeelError("STORE_INVALID", `Unknown filter operator "${op}".`, {
    hint: "Use $eq, $ne, $gt, $gte, $lt or $lte.",
  });
}

/** True when `namespace` starts with `prefix` (`"*"` matches any label). */
export function namespaceStartsWith(namespace: string[], prefix: string[]): boolean {
  if (prefix.length > namespace.length) return false;
  return prefix.every((label, i) => label === "*" || label === namespace[i]);
}

/** The namespaces `listNamespaces` returns from every namespace that holds items. */
export function selectNamespaces(all: string[][], options: ListNamespacesOptions): string[][] {
  const { prefix, suffix, maxDepth, limit = 100, offset = 0 } = options;
  const seen = new Map<string, string[]>();
  for (const ns of all) {
    if (prefix && !namespaceStartsWith(ns, prefix)) continue;
    if (suffix && !namespaceStartsWith([...ns].reverse(), [...suffix].reverse())) continue;
    const cut = maxDepth === undefined ? ns : ns.slice(0, maxDepth);
    seen.set(JSON.stringify(cut), cut);
  }
  const sorted = [...seen.values()].sort((a, b) => a.join(".").localeCompare(b.join(".")));
  return sorted.slice(offset, offset + limit);
}
