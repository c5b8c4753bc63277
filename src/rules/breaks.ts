import { typeError } from "./function-args.js";
import { bareName } from "./module-scope.js";
import { FALSE, type Value, VOID } from "./values.js";

/** What the commands need of the engine. */
export interface BreaksHost {
  /** The rule's module, or undefined when no rule has that name. */
  moduleOf(rule: string): string | undefined;
  /** Rule keys in definition order (`module-scope.ts`). */
  rules(): readonly string[];
  /** The key of the rule a typed name stands for (a bare name: the current module's). */
  key(typed: string): string;
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

  /** The rules with a breakpoint, in the order they were set (for snapshots). */
  list(): string[] {
    return [...this.rules];
  }

  /** Sets a breakpoint on each of `rules` (a restore; the rules exist). */
  setAll(rules: readonly string[]): void {
    for (const r of rules) this.rules.add(r);
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
        if (!this.rules.delete(rule))
          host.print(`Rule ${bareName(rule)} does not have a breakpoint set.\n`);
        return VOID;
      }
      case "show-breaks": {
        const modules = moduleArgument(host, args[0]);
        const headed = modules.length > 1 || args[0] === "*";
        let text = "";
        for (const m of modules) {
          if (headed) text += `${m}:\n`;
          for (const r of host.rules()) {
            if (this.rules.has(r) && host.moduleOf(r) === m) {
              text += `${headed ? "   " : ""}${bareName(r)}\n`;
            }
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
    throw typeError(fn, 1, "symbol");
  }
  const rule = host.key(arg);
  if (host.moduleOf(rule) === undefined) {
    host.print(`[PRNTUTIL1] Unable to find defrule ${arg}.\n`);
    return null;
  }
  return rule;
}

function moduleArgument(host: BreaksHost, arg: Value | undefined): readonly string[] {
  if (arg === undefined) return [host.module()];
  if (typeof arg !== "string") {
    throw typeError("show-breaks", 1, "symbol");
  }
  if (arg === "*") return host.modules();
  if (!host.modules().includes(arg)) {
    throw typeError("show-breaks", 1, "defmodule name");
  }
  return [arg];
}
