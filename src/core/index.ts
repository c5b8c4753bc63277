export { canonicalJson } from "./canonical-json.js";
export { type Clock, systemClock } from "./clock.js";
export { compareCodePoints } from "./code-point-order.js";
export { ERROR_CODES, type ErrorCode, exitCodeFor, httpStatusFor } from "./error-codes.js";
export {
  type ErrorTranslator,
  isKeelError,
  KeelError,
  type KeelErrorOptions,
  registerErrorTranslator,
  toKeelError,
} from "./errors.js";
export { blake2b128Hex, hashValue, sha256Hex } from "./hash.js";
export { newId, newRandomId } from "./ids.js";
export { jsonTooDeepAt, MAX_JSON_DEPTH } from "./json-depth.js";
export { parseJsonObject } from "./json-object.js";
export {
  isOptionalPeerLoaded,
  loadOptionalPeer,
  preloadOptionalPeer,
  provideOptionalPeer,
} from "./optional-peer.js";
export { pause } from "./pause.js";
export { VERSION } from "./version.js";
