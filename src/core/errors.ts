import { type ErrorCode, exitCodeFor } from "./error-codes.js";

/** Options every Keel error accepts. */
export interface KeelErrorOptions {
  /** The underlying error, kept so nothing is lost when errors are wrapped. */
  cause?: unknown;
  /** Structured facts about the failure (names, paths, values), safe to print as JSON. */
  details?: Record<string, unknown>;
  /** What the user should do next; appended to the message when present. */
  hint?: string;
}

/**
 * Brands Keel errors for `isKeelError`. A registered symbol is the same in every realm and in
 * every copy of this module, where `instanceof` fails.
 */
const KEEL_ERROR: unique symbol = Symbol.for("keel.error");

/**
 * The one error base class of Keel. Every error has a stable `code`, a message that says what
 * happened (and, through `hint`, what to do), and the original `cause`.
 *
 * @example
 * throw new KeelError("NOT_FOUND", `No thread "${id}".`, { hint: "List threads with `keel runs list`." });
 */
export class KeelError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;
  readonly hint: string | undefined;

  constructor(code: ErrorCode, message: string, options: KeelErrorOptions = {}) {
    super(options.hint ? `${message} ${options.hint}` : message, { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = options.details ?? {};
    this.hint = options.hint;
  }

  /** The brand `isKeelError` checks (on the prototype: no per-instance cost). */
  get [KEEL_ERROR](): true {
    return true;
  }

  /** The CLI exit code for this error. */
  get exitCode(): number {
    return exitCodeFor(this.code);
  }

  /** The `--json` shape of an error: `{ ok: false, error: { code, message, details } }`. */
  toJSON(): {
    ok: false;
    error: { code: ErrorCode; message: string; details: Record<string, unknown> };
  } {
    return { ok: false, error: { code: this.code, message: this.message, details: this.details } };
  }
}

/** True when `value` is a KeelError, also one made in another realm or by another copy of Keel. */
export function isKeelError(value: unknown): value is KeelError {
  return (
    value instanceof KeelError ||
    (typeof value === "object" &&
      value !== null &&
      (value as { [KEEL_ERROR]?: unknown })[KEEL_ERROR] === true)
  );
}

/** Turns a foreign error Keel recognises (a database driver's) into a KeelError, or undefined. */
export type ErrorTranslator = (value: unknown) => KeelError | undefined;

const translators: ErrorTranslator[] = [];

/**
 * Lets a lower layer name the errors of its own drivers for `toKeelError`: the store registers
 * SQLite's (a full disk is STORE_FULL, a corrupt page STORE_CORRUPT, …), so whatever boundary
 * meets such an error — the CLI, the server, a run recording why it failed — reports its code,
 * not INTERNAL. Core cannot import the store (layers go downward), hence the registration.
 *
 * @example
 * registerErrorTranslator((e) => (isDiskFull(e) ? new KeelError("STORE_FULL", "…") : undefined));
 */
export function registerErrorTranslator(translator: ErrorTranslator): void {
  if (!translators.includes(translator)) translators.push(translator);
}

/**
 * Normalises anything thrown into a KeelError, once, at an interface boundary.
 * Known Keel errors pass through untouched; errors a registered translator knows get its code.
 */
export function toKeelError(value: unknown): KeelError {
  if (isKeelError(value)) return value;
  for (const translate of translators) {
    const known = translate(value);
    if (known) return known;
  }
  const message = value instanceof Error ? value.message : String(value);
  return new KeelError("INTERNAL", `Unexpected error: ${message}`, { cause: value });
}
