import { KeelError, loadOptionalPeer } from "../../core/index.js";

/**
 * LangChain's serialisable objects (messages, message chunks, …) and `Document`s in checkpoints.
 * They are recognised structurally — `lc_serializable` and a `toJSON` giving LangChain's
 * `{ lc: 1, type: "constructor", id, kwargs }` — so a graph without them never loads
 * `@langchain/core`; on read they become instances of their classes again, as LangGraph's
 * serializer makes them, loaded from the same `@langchain/core` the application imports.
 */

/** LangChain's serialised form of a `Serializable`. */
export interface LcSerialized {
  lc: number;
  type: string;
  id: string[];
  kwargs?: Record<string, unknown>;
}

interface SerializableLike {
  lc_serializable: boolean;
  toJSON(): unknown;
}

/** True for an instance of one of LangChain's `Serializable` classes. */
export function isLcSerializable(value: object): value is SerializableLike {
  return (
    (value as Partial<SerializableLike>).lc_serializable === true &&
    typeof (value as Partial<SerializableLike>).toJSON === "function"
  );
}

/** True for a `@langchain/core/documents` `Document` (not a LangChain `Serializable`). */
export function isLcDocument(value: object): boolean {
  return (
    value.constructor?.name === "Document" &&
    typeof (value as { pageContent?: unknown }).pageContent === "string" &&
    typeof (value as { metadata?: unknown }).metadata === "object"
  );
}

function isSerialized(value: unknown): value is LcSerialized {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as LcSerialized).lc === 1 &&
    (value as LcSerialized).type === "constructor" &&
    Array.isArray((value as LcSerialized).id)
  );
}

type ClassModule = Record<string, unknown>;

/** Where the class of a serialised id lives: `langchain_core/<path>/<Class>` → `@langchain/core/<path>`. */
function moduleFor(id: string[]): string {
  const path = id.slice(1, -1);
  // Older ids (`["langchain", "schema", "messages", …]`) name the same message classes.
  if (id[0] !== "langchain_core" || path.length === 0) return "@langchain/core/messages";
  return `@langchain/core/${path.join("/")}`;
}

/** Makes the instance a serialised LangChain object stands for; `kwargs` are already decoded. */
export function reviveLc(serialized: unknown): unknown {
  if (!isSerialized(serialized)) {
    throw new KeelError("CHECKPOINT_FORMAT", "A LangChain value in a checkpoint is malformed.", {
      details: { value: serialized },
      hint: "The checkpoint was altered or written by another program.",
    });
  }
  const name = serialized.id[serialized.id.length - 1] ?? "";
  const specifier = moduleFor(serialized.id);
  const module = loadOptionalPeer<ClassModule>(specifier);
  const Class = module[name];
  if (typeof Class !== "function") {
    throw new KeelError(
      "CHECKPOINT_FORMAT",
      `A checkpoint holds a LangChain "${serialized.id.join("/")}", which ${specifier} does not export.`,
      {
        details: { id: serialized.id },
        hint: "Read the thread with the @langchain/core version that wrote it.",
      },
    );
  }
  return new (Class as new (kwargs: unknown) => unknown)(serialized.kwargs ?? {});
}

/** Makes a `Document` again. */
export function reviveLcDocument(fields: unknown): unknown {
  const { Document } = loadOptionalPeer<{ Document: new (fields: unknown) => unknown }>(
    "@langchain/core/documents",
  );
  return new Document(fields);
}
