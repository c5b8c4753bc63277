/**
 * Rule breakpoints as CLIPS 6.30 has them (rulebsc.c, engine.c): `(set-break rule)`,
 * `(remove-break [rule])`, `(show-breaks [module | *])`. A run stops before firing a rule with a
 * breakpoint, unless that rule is the first the run fires.
 */
import { rulesRuntimeError } from "./errors.js";
import { splitRuleName } from "./rule-entry.js";
import { FALSE, type Value, VOID } from "./values.js";

/** What the commands need of the engine. */
export interface BreaksHost {
  /** The rule's module, or undefined when no rule has that name. */
  moduleOf(rule: string): string | undefined;
  /** Rule names in definition order. */
  rules(): readonly string[];
  /** Module names in definition order, and the current one. */
  modules(): readonly string[];
  module(): string;
  print(text: string): void;
}

export class Breakpoints {
  private readonly rules = new Set<string>();

  /** How many rules have a breakpoint. */
  get size(): number {
    return this.rules.size;
  }

  /** True when a run must stop before firing `rule`. */
  has(rule: string): boolean {
    return this.rules.has(rule);
  }

  /** A deleted rule loses its breakpoint (a redefined one keeps it, as in CLIPS). */
  forget(rule: string): void {
    this.rules.delete(rule);
  }

  clear(): void {
    this.rules.clear();
  }

  /** Runs set-break, remove-break or show-breaks; null for another name. */
  command(host: BreaksHost, name: string, args: readonly Value[]): Value | null {
    switch (name) {
      case "set-break": {
        const rule = ruleArgument(host, name, args[0]);
        if (rule === null) return FALSE;
        this.rules.add(rule);
        return VOID;
      }
      case "remove-break": {
        if (args[0] === undefined) {
          this.rules.clear();
          return VOID;
        }
        const rule = ruleArgument(host, name, args[0]);
        if (rule === null) return FALSE;
        if (!this.rules.delete(rule)) host.print(`Rule ${rule} does not have a breakpoint set.\n`);
        return VOID;
      }
      case "show-breaks": {
        const modules = moduleArgument(host, args[0]);
        const headed = modules.length > 1 || args[0] === "*";
        let text = "";
        for (const m of modules) {
          if (headed) text += `${m}:\n`;
          for (const r of host.rules()) {
            if (this.rules.has(r) && host.moduleOf(r) === m) text += `${headed ? "   " : ""}${r}\n`;
          }
        }
        host.print(text);
        return VOID;
      }
      default:
        return null;
    }
  }
}

/** The rule a command names, or null after CLIPS's message for an unknown one. */
function ruleArgument(host: BreaksHost, fn: string, arg: Value | undefined): string | null {
  if (typeof arg !== "string") {
    throw rulesRuntimeError(`${fn} expects a rule name`, {
      clips: `[ARGACCES5] Function ${fn} expected argument #1 to be of type symbol`,
    });
  }
  const { module, rule } = splitRuleName(arg);
  const found = host.moduleOf(rule);
  if (found === undefined || (module !== null && module !== found)) {
    host.print(`[PRNTUTIL1] Unable to find defrule ${arg}.\n`);
    return null;
  }
  return rule;
}

function moduleArgument(host: BreaksHost, arg: Value | undefined): readonly string[] {
  if (arg === undefined) return [host.module()];
  if (typeof arg !== "string") {
    throw rulesRuntimeError("show-breaks expects a module name", {
      clips: "[ARGACCES5] Function show-breaks expected argument #1 to be of type symbol",
    });
  }
  if (arg === "*") return host.modules();
  if (!host.modules().includes(arg)) {
    throw rulesRuntimeError(`show-breaks: no module ${arg}`, {
      clips: "[ARGACCES5] Function show-breaks expected argument #1 to be of type defmodule name",
    });
  }
  return [arg];
}
