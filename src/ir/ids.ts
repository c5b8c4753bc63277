import { KeelError, newId } from "../core/index.js";

/**
 * Identifier utilities of the IR (seed 000, "ID generation"): run and checkpoint ids, stable
 * slugs for nodes, rules and packs, and id autogeneration. The fact content hash lives in
 * `fact-hash.ts`.
 */

/** A new run id: a UUIDv7 string, sortable by creation time. */
export function newRunId(): string {
  return newId();
}

/** A new checkpoint id: a UUIDv7 string, sortable by creation time. */
export function newCheckpointId(): string {
  return newId();
}

/** Node, rule and pack ids: a lowercase letter or digit, then up to 127 of `[a-z0-9_.-]`. */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9_\-.]{0,127}$/;

/** What kind of id is being checked; named in error messages. */
export type IdKind = "node" | "rule" | "pack";

/** True when `value` is a valid stable slug. */
export function isValidSlug(value: string): boolean {
  return SLUG_PATTERN.test(value);
}

/** Why `value` is not a slug, in words, or undefined when it is one. */
export function slugProblem(value: string): string | undefined {
  if (SLUG_PATTERN.test(value)) return undefined;
  if (value.length === 0) return "it is empty";
  if (value.length > 128) return `it is ${value.length} characters long (at most 128)`;
  if (!/^[a-z0-9]/.test(value)) return "it must start with a lowercase letter or a digit";
  const bad = /[^a-z0-9_\-.]/.exec(value);
  if (bad) return `it contains ${JSON.stringify(bad[0])} (allowed: a-z, 0-9, "_", "-", ".")`;
  return undefined;
}

function validateId(kind: IdKind, value: string): string {
  const reason = slugProblem(value);
  if (reason !== undefined) {
    throw new KeelError(
      "IR_INVALID_ID",
      `${kind} id ${JSON.stringify(value)} is not a slug: ${reason}.`,
      {
        details: { kind, id: value },
        hint: `Use something like ${JSON.stringify(slug(value) || kind)}.`,
      },
    );
  }
  return value;
}

/**
 * Validates a node id and returns it; throws `IR_INVALID_ID` otherwise.
 *
 * @example
 * validateNodeId("node_a") // "node_a"
 */
export function validateNodeId(value: string): string {
  return validateId("node", value);
}

/** Validates a rule id and returns it; throws `IR_INVALID_ID` otherwise. */
export function validateRuleId(value: string): string {
  return validateId("rule", value);
}

/** Validates a pack id and returns it; throws `IR_INVALID_ID` otherwise. */
export function validatePackId(value: string): string {
  return validateId("pack", value);
}

/** The longest slug `slug()` produces. */
export const SLUG_MAX_LENGTH = 24;

/**
 * A slug made from free text: lowercased, every run of characters other than `a-z0-9` collapsed
 * to `-`, no leading or trailing `-`, at most 24 characters. May be empty (no letters or digits).
 *
 * @example
 * slug("Escalate: Severity >= 4!") // "escalate-severity-4"
 */
export function slug(text: string): string {
  const collapsed = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return collapsed.slice(0, SLUG_MAX_LENGTH).replace(/-+$/, "");
}

/** An item that may lack an id; `name` (or, failing that, its first field) seeds the generated one. */
export interface Identifiable {
  id?: string | null | undefined;
  name?: string | null | undefined;
}

/** An item with its id filled in. */
export type WithId<T> = Omit<T, "id"> & { id: string };

function autogenIds<T extends Identifiable>(items: readonly T[]): WithId<T>[] {
  const taken = new Set<string>();
  for (const item of items) if (item.id) taken.add(item.id);
  return items.map((item) => {
    if (item.id) return { ...item, id: item.id };
    const base = slug(seedText(item));
    let candidate = base;
    for (let suffix = 2; candidate === "" || taken.has(candidate); suffix++) {
      candidate = base === "" ? `item-${suffix}` : `${base}-${suffix}`;
    }
    taken.add(candidate);
    return { ...item, id: candidate };
  });
}

/** The text an id is made from: the `name`, else the item's first field (as Stargraph does). */
function seedText(item: Identifiable): string {
  if (item.name) return item.name;
  const first = Object.values(item)[0];
  return first === undefined || first === null ? "" : String(first);
}

/**
 * Fills missing node ids with `slug(name)`, suffixing collisions `-2`, `-3`, …; items that
 * already have an id keep it (and reserve it). Returns new objects; the input is not changed.
 *
 * @example
 * autogenNodeIds([{ name: "Fetch" }, { name: "fetch" }]) // ids "fetch", "fetch-2"
 */
export function autogenNodeIds<T extends Identifiable>(items: readonly T[]): WithId<T>[] {
  return autogenIds(items);
}

/** Fills missing rule ids like {@link autogenNodeIds}. */
export function autogenRuleIds<T extends Identifiable>(items: readonly T[]): WithId<T>[] {
  return autogenIds(items);
}

/** Fills missing pack ids like {@link autogenNodeIds}. */
export function autogenPackIds<T extends Identifiable>(items: readonly T[]): WithId<T>[] {
  return autogenIds(items);
}
