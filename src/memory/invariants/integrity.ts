/** A record as the integrity check reads it (wire names). */
export interface IntegrityRecord {
  kind?: string;
  context: {
    target?: string;
    namespace?: string;
    status?: string;
    superseded_by?: string | null;
    supersedes?: readonly string[];
  };
}

/** The outcome of an integrity check. */
export type IntegrityCheck =
  | { valid: true }
  | { valid: false; invariant: "I3 Violation" | "I4 Violation" | "I5 Violation"; message: string };

/**
 * Checks a set of records (by id) against the memory's invariants: I4 one active decision per
 * (target, namespace); I3 two-way supersede links (no dangling `superseded_by`, and the
 * successor lists the record in `supersedes`); I5 no supersede cycles. The database enforces
 * the same invariants on every write; this check reads a bundle or an export before import.
 *
 * @example
 * checkIntegrity({ "a": { kind: "decision", context: { target: "db", status: "active" } } }) // { valid: true }
 */
export function checkIntegrity(records: Readonly<Record<string, IntegrityRecord>>): IntegrityCheck {
  const active = new Map<string, string>();
  const ids = Object.keys(records);
  for (const id of ids) {
    const record = records[id] as IntegrityRecord;
    const { target, status } = record.context;
    const namespace = record.context.namespace ?? "default";
    if ((record.kind ?? "decision") === "decision" && status === "active" && target) {
      const key = JSON.stringify([target, namespace]);
      const holder = active.get(key);
      if (holder !== undefined) {
        return fail(
          "I4 Violation",
          holder,
          `Multiple active decisions for target '${target}' in namespace '${namespace}'`,
        );
      }
      active.set(key, id);
    }
    const successor = record.context.superseded_by;
    if (successor) {
      const next = records[successor];
      if (!next)
        return fail("I3 Violation", id, "Dangling reference. Superseded by non-existent file.");
      if (!(next.context.supersedes ?? []).includes(id)) {
        return fail(
          "I3 Violation",
          id,
          `Broken backlink. ${successor} does not acknowledge via 'supersedes'.`,
        );
      }
    }
  }
  for (const start of ids) {
    const path = new Set<string>([start]);
    let current = start;
    for (;;) {
      const next = records[current]?.context.superseded_by;
      if (!next || !records[next]) break;
      if (path.has(next))
        return fail("I5 Violation", current, "Cycle detected in knowledge evolution.");
      path.add(next);
      current = next;
    }
  }
  return { valid: true };
}

function fail(
  invariant: "I3 Violation" | "I4 Violation" | "I5 Violation",
  id: string,
  text: string,
): IntegrityCheck {
  return { valid: false, invariant, message: `[${id}] ${invariant}: ${text}` };
}
