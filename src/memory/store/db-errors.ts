import { KeelError } from "../../core/index.js";

/** What a failed memory write means, from the database's own refusal. */
export function memoryWriteError(error: unknown): KeelError | null {
  if (error === null || typeof error !== "object") return null;
  const e = error as { code?: unknown; constraint?: unknown; message?: unknown };
  const message = typeof e.message === "string" ? e.message : "";
  const invariant = /memory invariant (I\d)[^)]*\)?[^']*/.exec(message);
  if (invariant) {
    return new KeelError("MEMORY_INVARIANT", `The database refused the change: ${invariant[0]}.`, {
      cause: error,
      details: { invariant: invariant[1] },
      hint: "Records are never edited in place: record a new decision, or supersede the old one.",
    });
  }
  if (message.includes("ck_state_memory_records_superseded_link")) {
    return new KeelError(
      "MEMORY_INVARIANT",
      "The database refused the change: a record is superseded exactly when it names its successor (I3).",
      { cause: error, details: { invariant: "I3" } },
    );
  }
  return null;
}

/** Whether an error is the one-active-decision index refusing a second active decision. */
export function isActiveTargetTaken(error: unknown): boolean {
  if (error === null || typeof error !== "object") return false;
  const e = error as { code?: unknown; constraint?: unknown; message?: unknown };
  if (e.code === "23505") return e.constraint === "ix_state_memory_records_namespace_target";
  return (
    e.code === "SQLITE_CONSTRAINT_UNIQUE" &&
    typeof e.message === "string" &&
    e.message.includes("state_memory_records.namespace, state_memory_records.target")
  );
}

/** Whether an error is the unique content hash refusing a duplicate event. */
export function isDuplicateEvent(error: unknown): boolean {
  if (error === null || typeof error !== "object") return false;
  const e = error as { code?: unknown; constraint?: unknown; message?: unknown };
  if (e.code === "23505") return e.constraint === "ix_state_memory_events_content_hash";
  return (
    e.code === "SQLITE_CONSTRAINT_UNIQUE" &&
    typeof e.message === "string" &&
    e.message.includes("state_memory_events.content_hash")
  );
}
