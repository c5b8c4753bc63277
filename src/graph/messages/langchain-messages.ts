import type * as LcMessages from "@langchain/core/messages";
import { loadOptionalPeer } from "../../core/index.js";

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
