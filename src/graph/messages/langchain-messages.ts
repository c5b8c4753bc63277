import type * as LcMessages from "@langchain/core/messages";
import { isOptionalPeerLoaded, loadOptionalPeer, preloadOptionalPeer } from "../../core/index.js";
import type { StateDefinition } from "../annotation.js";
import { BinaryOperatorAggregate } from "../channels/index.js";
import { EngineChannel } from "../channels/public/engine-channel.js";

/** `@langchain/core/messages`, loaded the first time a messages reducer or stream needs it. */
export function lcMessages(): typeof LcMessages {
  return loadOptionalPeer<typeof LcMessages>("@langchain/core/messages");
}

/** True for a LangChain message instance (checked by shape: LangChain need not be loaded). */
export function isMessageLike(value: unknown): value is LcMessages.BaseMessage {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { getType?: unknown }).getType === "function" &&
    "content" in value &&
    (value as { lc_serializable?: unknown }).lc_serializable === true
  );
}

/** The LangChain modules a messages graph (and its saver's reads) may need, loaded natively. */
const MODULES = [
  "@langchain/core/messages",
  "@langchain/core/documents",
  "@langchain/core/callbacks/base",
];

/** Loads LangChain's message modules before a run of a graph with a messages key. */
export async function preloadLangChain(): Promise<void> {
  if (isOptionalPeerLoaded(MODULES[0]!)) return;
  for (const specifier of MODULES) await preloadOptionalPeer(specifier);
}

/**
 * True when some key of `schema` is reduced by one of `reducers` (e.g. `messagesStateReducer`,
 * or `messagesDeltaReducer` in a `DeltaChannel`).
 */
export function schemaUsesReducer(schema: StateDefinition, ...reducers: unknown[]): boolean {
  for (const [key, spec] of Object.entries(schema)) {
    // An uncalled `Annotation<T>` is a last-value key: never reduced.
    if (typeof spec === "function") continue;
    const channel = spec;
    if (!channel.hasReducer) continue;
    const made = channel.createChannel(key);
    if (made instanceof BinaryOperatorAggregate && reducers.includes(made.operator)) return true;
    if (made instanceof EngineChannel && reducers.includes(made.reducer)) return true;
  }
  return false;
}
