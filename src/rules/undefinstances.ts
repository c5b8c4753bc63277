/**
 * `(undefinstances NAME)` as CLIPS 6.30 runs it: the definstances goes (its instances stay until
 * the next reset); `*` is every definstances of the current module (the one named `*` if there
 * is one); `initial-object`, MAIN's built-in definstances, can go too — `(reset)` then makes no
 * `[initial-object]` until `(clear)`. An unknown name is [PRNTUTIL1].
 */
import { rulesRuntimeError } from "./errors.js";
import { typeError } from "./function-args.js";
import { isSymbol, type Value } from "./values.js";

/** What the engine gives the command. */
export interface UndefinstancesHost {
  /** The user definstances of the current module, oldest first. */
  names(): string[];
  has(name: string): boolean;
  /** Whether the built-in initial-object definstances is there to delete (MAIN, not deleted). */
  builtIn(): boolean;
  dropBuiltIn(): void;
  remove(name: string): void;
}

/** Runs `(undefinstances name)`. */
export function undefinstances(args: readonly Value[], host: UndefinstancesHost): void {
  const target = args[0] as Value;
  if (!isSymbol(target)) throw typeError("undefinstances", 1, "symbol");
  if (target === "*" && !host.has("*")) {
    if (host.builtIn()) host.dropBuiltIn();
    for (const name of host.names()) host.remove(name);
    return;
  }
  if (target === "initial-object" && host.builtIn()) {
    host.dropBuiltIn();
    return;
  }
  if (!host.has(target)) {
    throw rulesRuntimeError(`unable to find definstances ${target}`, {
      clips: `[PRNTUTIL1] Unable to find definstances ${target}.`,
      hint: "list-definstances lists the definstances there are.",
    });
  }
  host.remove(target);
}
