/**
 * CLIPS's behaviour switches that Keel accepts and remembers, all but `reset-globals` changing
 * nothing in Keel:
 * `(set-… TRUE|FALSE)` returns the previous setting and `(get-…)` the current one, as in CLIPS,
 * so programs that set them (CLIPS's own test suite does, first thing) run. What each would
 * change is in docs/rules.md ("What differs from CLIPS").
 */
import { rulesRuntimeError } from "./errors.js";
import { FALSE, TRUE, type Value } from "./values.js";

/** Each switch and CLIPS 6.30's default. */
const DEFAULTS: ReadonlyMap<string, boolean> = new Map([
  ["sequence-operator-recognition", false],
  ["dynamic-constraint-checking", false],
  ["static-constraint-checking", true],
  ["reset-globals", true],
  ["incremental-reset", true],
  ["auto-float-dividend", true],
]);

/** The `set-…` and `get-…` command names. */
export const SWITCH_COMMANDS: readonly string[] = [...DEFAULTS.keys()].flatMap((k) => [
  `set-${k}`,
  `get-${k}`,
]);

/** One engine's settings of the switches. */
export class Switches {
  private readonly values = new Map(DEFAULTS);

  /** A switch's setting (`reset-globals` is the one Keel acts on: reset leaves globals alone). */
  enabled(key: string): boolean {
    return this.values.get(key) ?? false;
  }

  /** Runs `set-…`/`get-…`; null when `name` is not a switch command. */
  command(name: string, args: readonly Value[]): Value | null {
    const key = name.slice(4);
    const current = this.values.get(key);
    if (current === undefined || !(name.startsWith("set-") || name.startsWith("get-"))) return null;
    const setting = name.startsWith("set-");
    const arity = setting ? 1 : 0;
    if (args.length !== arity) {
      throw rulesRuntimeError(`${name} expects exactly ${arity} argument(s)`, {
        clips: `[ARGACCES4] Function ${name} expected exactly ${arity} argument(s)`,
      });
    }
    if (setting) this.values.set(key, args[0] !== FALSE);
    return current ? TRUE : FALSE;
  }
}
