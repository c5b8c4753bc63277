/**
 * The evaluation host: what compiled expressions call to change working memory, print, halt or run
 * a top-level command. The engine supplies a backend of its internals.
 */
import type { KeelError } from "../core/index.js";
import { noteEvaluationError } from "./clips-messages.js";
import { rulesRuntimeError } from "./errors.js";
import type { EvalHost, ObjectOps, ResolvedFact } from "./evaluate.js";
import type { Fact } from "./facts.js";
import { formatText } from "./format.js";
import type { RuleFunction } from "./functions.js";
import type { InputBuffer } from "./input.js";
import type { RuleLimits } from "./limits.js";
import { logicalName } from "./logical-names.js";
import { bareName } from "./module-scope.js";
import { factsListing } from "./printer.js";
import { isRouterName, STDOUT_ROUTERS, unknownRouterMessage } from "./routers.js";
import {
  type Atom,
  FALSE,
  isFactRef,
  isInteger,
  isString,
  isSymbol,
  str,
  type Value,
  VOID,
} from "./values.js";

function print(b: HostBackend, router: string, text: string): void {
  if (STDOUT_ROUTERS.has(router)) b.print(text);
}

import { changedValues, type WorkingMemory } from "./working-memory.js";

/** The engine internals the evaluation host works through. */
export interface HostBackend {
  readonly wm: WorkingMemory;
  hostFunction(name: string): RuleFunction | undefined;
  assertResolved(r: ResolvedFact): Fact | null;
  retractFact(fact: Fact): void;
  /** True while a fact or instance is being matched (a pattern's function is running). */
  matching(): boolean;
  /** Runs `run` with the matching of changed instances put off until it ends. */
  delayObjectMatching(run: () => Value): Value;
  /**
   * Runs a fact already created in working memory through the network; false when it was taken
   * back instead (the firing rule's logical support is gone).
   */
  enter(fact: Fact): boolean;
  print(text: string): void;
  readonly matchError?: ((error: KeelError) => void) | undefined;
  halt(): void;
  exit(): void;
  reset(): void;
  clear(): void;
  /** Fires rules; how many fired, or null when rules are already firing (the run is ignored). */
  run(limit: number): number | null;
  /**
   * The facts `(facts [module])` lists: those in the scope of the current module (undefined),
   * of a module, or all (`*`); null when there is no such module.
   */
  factsOfModule(module: string | undefined): Fact[] | null;
  /** `(agenda [module])`: the current module's agenda when none is named. */
  agendaText(module?: Value): string;
  /** The engine's own commands (focus stack, strategy, watch); null when `name` is not one. */
  engineCommand(name: string, args: Value[]): Value | null;
  global(name: string): Value;
  setGlobal(name: string, value: Value): void;
  resetGlobal(name: string): Value;
  readonly input: InputBuffer;
  readonly objects: ObjectOps;
  /** The engine's bounds (read per loop, so a change applies at once). */
  readonly limits: RuleLimits;
  /** RULES_LIMIT when the current run or top-level command is past its wall time. */
  checkDeadline(): void;
}

/** Builds the host compiled expressions evaluate against. */
export function createEvalHost(b: HostBackend): EvalHost {
  return {
    hostFunction: (name) => b.hostFunction(name),
    delayObjectMatching: (run) => b.delayObjectMatching(run),
    assertFact: (r) => {
      if (b.matching()) return refusedWhileMatching(b, 2, "asserted");
      return b.assertResolved(r) ?? FALSE;
    },
    retract: (target, index = 1) => {
      if (b.matching()) {
        refusedWhileMatching(b, 1, "retracted");
        return;
      }
      if (target === "*") {
        for (const f of b.wm.all()) b.retractFact(f);
        return;
      }
      // CLIPS's words for what retract refuses: another symbol, or a value of another type.
      if (!isFactRef(target) && !isInteger(target)) {
        const expected = isSymbol(target)
          ? "fact-address, fact-index, or the symbol *"
          : "fact-address, integer, or symbol";
        throw rulesRuntimeError(`retract expects a fact address, a fact index or *`, {
          clips: `[ARGACCES5] Function retract expected argument #${index} to be of type ${expected}`,
        });
      }
      // CLIPS ignores a fact address whose fact is already retracted.
      if (isFactRef(target) && target.retracted) return;
      const fact = factOf(b, target, "retract");
      if (fact) b.retractFact(fact);
    },
    modify: (target, changes, dup) => {
      // CLIPS modifies and duplicates from a fact address even after the fact was retracted (its
      // values remain): modify's retraction then does nothing and the new fact is asserted.
      const fact =
        isFactRef(target) && target.retracted
          ? "values" in target
            ? (target as Fact)
            : null
          : factOf(b, target, dup ? "duplicate" : "modify");
      // CLIPS 6.30 leaves ordered facts alone here and returns FALSE.
      if (!fact || fact.template === null) return FALSE;
      const values = changedValues(fact, changes);
      if (!dup) b.retractFact(fact);
      const created = b.wm.create(fact.relation, fact.template, values);
      if (!created || !b.enter(created)) return FALSE;
      return created;
    },
    print: (router, text) => print(b, router, text),
    matchError: b.matchError,
    halt: () => {
      b.halt();
    },
    global: (name) => b.global(name),
    setGlobal: (name, value) => b.setGlobal(name, value),
    resetGlobal: (name) => b.resetGlobal(name),
    command: (name, args) => command(b, name, args),
    objects: b.objects,
    get limits() {
      return b.limits;
    },
    checkDeadline: () => b.checkDeadline(),
  };
}

/** CLIPS's refusal of an assert or retract made by a function a pattern calls (factmngr.c). */
function refusedWhileMatching(b: HostBackend, id: number, what: string): Value {
  b.print(`\n[FACTMNGR${id}] Facts may not be ${what} during pattern-matching\n`);
  return FALSE;
}

/**
 * The fact a retract/modify/duplicate target names. A missing index is reported as CLIPS reports
 * it (`[PRNTUTIL1]`) and the action goes on with nothing to do (null).
 */
function factOf(b: HostBackend, target: Value, fn: string): Fact | null {
  if (isFactRef(target)) {
    const f = b.wm.byId.get(target.factId);
    return f === target ? f : null;
  }
  if (isInteger(target)) {
    const f = b.wm.byId.get(target);
    if (!f) b.print(`[PRNTUTIL1] Unable to find fact f-${target}.\n`);
    return f ?? null;
  }
  throw rulesRuntimeError(`${fn} expects a fact address or a fact index`);
}

/** A top-level command, or null when `name` is not one. */
function command(b: HostBackend, name: string, args: Value[]): Value | null {
  const n = (i: number): number | undefined =>
    isInteger(args[i] as Value) ? (args[i] as number) : undefined;
  switch (name) {
    case "reset":
      b.reset();
      return VOID;
    case "clear":
      b.clear();
      return VOID;
    case "run": {
      const limit = n(0) ?? -1;
      const fired = b.run(limit);
      // CLIPS 6.30 counts its limit down as rules fire and then compares what is left with the
      // number fired, so the message comes when the limit is twice what fired ((run 0) included).
      if (fired !== null && limit >= 0 && limit - fired === fired) {
        b.print("rule firing limit reached\n");
      }
      return VOID;
    }
    case "facts": {
      const range = factsRange(b, args);
      if (range) b.print(factsListing(range.facts, range.from, range.to, range.max));
      return VOID;
    }
    case "agenda":
      b.print(b.agendaText(args[0]));
      return VOID;
    case "exit":
      b.exit();
      return VOID;
    case "format": {
      const control = args[1];
      if (control === undefined) {
        throw rulesRuntimeError("format expects a logical name and a control string", {
          clips: "[ARGACCES4] Function format expected at least 2 argument(s)",
        });
      }
      if (!isString(control)) {
        throw rulesRuntimeError("format's control must be a string", {
          clips: "[ARGACCES5] Function format expected argument #2 to be of type string",
        });
      }
      const router = args[0] as Value;
      // The router is looked up before the control string is read.
      const routerName = logicalName("format", router);
      if (!isRouterName(routerName)) {
        b.print(`${unknownRouterMessage(routerName)}\n`);
        return str("");
      }
      const text = formatText(control.value, args.slice(2));
      if (routerName !== "nil") print(b, routerName, text);
      return str(text);
    }
    case "fact-index":
    case "fact-relation":
    case "fact-existp":
    case "fact-slot-value":
    case "fact-slot-names":
      return factFunction(b, name, args);
    case "get-fact-list":
      return b.wm.all();
    case "read":
      inputRouter(name, args[0]);
      return b.input.read();
    case "readline":
      inputRouter(name, args[0]);
      return b.input.readLine();
    case "read-number":
      inputRouter(name, args[0]);
      return b.input.readNumber();
    default:
      return b.engineCommand(name, args);
  }
}

/** A read's logical name: no file is ever open, so only the terminal's names are known. */
function inputRouter(fn: string, name: Value | undefined): void {
  if (name === undefined) return;
  const text = logicalName(fn, name);
  if (isRouterName(text)) return;
  throw rulesRuntimeError(`${fn}: no router for logical name ${text}`, {
    clips: unknownRouterMessage(text),
  });
}

/**
 * The facts, start, end and maximum of `(facts [module] [start [end [max]]])` (-1 when not
 * given); null after printing the message CLIPS prints for a bad argument (factcom.c
 * FactsCommand).
 */
function factsRange(
  b: HostBackend,
  args: Value[],
): { facts: readonly Fact[]; from: number; to: number; max: number } | null {
  const bad = (index: number, type: string) => {
    b.print(`[ARGACCES5] Function facts expected argument #${index} to be of type ${type}\n`);
    return null;
  };
  const first = args[0];
  let from = 0;
  let facts = b.factsOfModule(undefined) ?? [];
  if (first !== undefined && isSymbol(first)) {
    // `*` means every module.
    const named = b.factsOfModule(first);
    if (named === null) {
      b.print(`[PRNTUTIL1] Unable to find defmodule ${first}.\n`);
      return null;
    }
    facts = named;
    from = 1;
  } else if (first !== undefined && (!isInteger(first) || first < 0)) {
    return bad(1, "symbol or positive number");
  }
  const out: [number, number, number] = [-1, -1, -1];
  for (let k = 0; k < 3 && from + k < args.length; k++) {
    const v = args[from + k] as Value;
    if (!isInteger(v)) return bad(from + k + 1, "integer");
    if (v < 0) return bad(from + k + 1, "positive number");
    out[k] = v;
  }
  return { facts, from: out[0], to: out[1], max: out[2] };
}

/**
 * fact-index, fact-relation, fact-existp, fact-slot-value, fact-slot-names (factfun.c), with
 * CLIPS's argument checks: each message printed where CLIPS prints it, then FALSE and CLIPS's
 * evaluation error (a rule's actions halt).
 */
function factFunction(b: HostBackend, name: string, args: Value[]): Value {
  const fail = (text: string): Value => {
    b.print(`${text}\n`);
    noteEvaluationError();
    return FALSE;
  };
  const target = args[0] as Value;
  if (name === "fact-index") {
    if (!isFactRef(target)) {
      return fail(
        "[ARGACCES5] Function fact-index expected argument #1 to be of type fact-address",
      );
    }
    return target.factId;
  }
  if (!isFactRef(target) && !isInteger(target) && !isSymbol(target)) {
    return fail(
      `[ARGACCES5] Function ${name} expected argument #1 to be of type fact-address, integer, or symbol`,
    );
  }
  if (!isFactRef(target) && !(isInteger(target) && target >= 0)) {
    return fail(
      `[ARGACCES5] Function ${name} expected argument #1 to be of type fact-address or fact-index`,
    );
  }
  const fact = b.wm.byId.get(isFactRef(target) ? target.factId : (target as number)) ?? null;
  const live = fact !== null && (!isFactRef(target) || fact === target);
  if (name === "fact-existp") return live ? "TRUE" : FALSE;
  if (name === "fact-relation")
    return live && fact ? (fact.template?.name ?? bareName(fact.relation)) : FALSE;
  const slot = args[1];
  if (name === "fact-slot-value" && (slot === undefined || !isSymbol(slot))) {
    return fail("[ARGACCES5] Function fact-slot-value expected argument #2 to be of type symbol");
  }
  // A retracted fact's address gives FALSE without a message; an index of no fact prints one.
  if ((!live || !fact) && isFactRef(target)) return FALSE;
  if (!live || !fact) {
    const id = isFactRef(target) ? target.factId : (target as number);
    return fail(`[PRNTUTIL1] Unable to find fact f-${id}.`);
  }
  if (name === "fact-slot-names") {
    return fact.template === null ? ["implied"] : fact.template.slots.map((s) => s.name);
  }
  if (fact.template === null) {
    if (slot === "implied") return fact.values as Atom[];
  } else {
    const index = fact.template.slotIndex.get(slot as string);
    if (index !== undefined) return fact.values[index] as Value;
  }
  return fail(
    `[TMPLTDEF1] Invalid slot ${String(slot)} not defined in corresponding deftemplate ${fact.template?.name ?? fact.relation}.`,
  );
}
