/**
 * The evaluation host: what compiled expressions call to change working memory, print, halt or run
 * a top-level command. The engine supplies a backend of its internals.
 */
import { rulesRuntimeError } from "./errors.js";
import type { EvalHost, ResolvedFact } from "./evaluate.js";
import type { Fact } from "./facts.js";
import type { RuleFunction } from "./functions.js";
import { factsListing } from "./printer.js";
import { FALSE, isFactRef, isInteger, type Value } from "./values.js";
import { changedValues, type WorkingMemory } from "./working-memory.js";

/** The engine internals the evaluation host works through. */
export interface HostBackend {
  readonly wm: WorkingMemory;
  hostFunction(name: string): RuleFunction | undefined;
  assertResolved(r: ResolvedFact): Fact | null;
  retractFact(fact: Fact): void;
  /** Runs a fact already created in working memory through the network. */
  enter(fact: Fact): void;
  print(text: string): void;
  halt(): void;
  exit(): void;
  reset(): void;
  clear(): void;
  /** Fires rules; how many fired, or null when rules are already firing (the run is ignored). */
  run(limit: number): number | null;
  agendaText(): string;
}

/** Builds the host compiled expressions evaluate against. */
export function createEvalHost(b: HostBackend): EvalHost {
  return {
    hostFunction: (name) => b.hostFunction(name),
    assertFact: (r) => b.assertResolved(r) ?? FALSE,
    retract: (target) => {
      if (target === "*") {
        for (const f of b.wm.all()) b.retractFact(f);
        return;
      }
      if (isInteger(target) && !b.wm.byId.has(target)) {
        // CLIPS reports a missing index and carries on.
        b.print(`[PRNTUTIL1] Unable to find fact f-${target}.\n`);
        return;
      }
      const fact = factOf(b.wm, target, "retract");
      if (fact) b.retractFact(fact);
    },
    modify: (target, changes, dup) => {
      // CLIPS duplicates from a fact address even after the fact was retracted (its values remain).
      const fact =
        dup && isFactRef(target) && target.retracted && "values" in target
          ? (target as Fact)
          : factOf(b.wm, target, dup ? "duplicate" : "modify");
      if (!fact) return FALSE;
      const values = changedValues(fact, changes);
      if (!dup) b.retractFact(fact);
      const created = b.wm.create(fact.relation, fact.template, values);
      if (!created) return FALSE;
      b.enter(created);
      return created;
    },
    print: (router, text) => {
      if (router === "t" || router === "stdout") b.print(text);
    },
    halt: () => {
      b.halt();
    },
    command: (name, args) => command(b, name, args),
  };
}

/** The fact a retract/modify/duplicate target names, or an error. */
function factOf(wm: WorkingMemory, target: Value, fn: string): Fact | null {
  if (isFactRef(target)) {
    const f = wm.byId.get(target.factId);
    if (!f || f !== target) {
      throw rulesRuntimeError(`${fn} was given fact f-${target.factId}, which has been retracted`);
    }
    return f;
  }
  if (isInteger(target)) {
    const f = wm.byId.get(target);
    if (!f) {
      throw rulesRuntimeError(`${fn} found no fact f-${target}`, {
        clips: `[PRNTUTIL1] Unable to find fact f-${target}.`,
      });
    }
    return f;
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
      return FALSE;
    case "clear":
      b.clear();
      return FALSE;
    case "run": {
      const limit = n(0) ?? -1;
      const fired = b.run(limit);
      // CLIPS 6.30 counts its limit down as rules fire and then compares what is left with the
      // number fired, so the message comes when the limit is twice what fired ((run 0) included).
      if (fired !== null && limit >= 0 && limit - fired === fired) {
        b.print("rule firing limit reached\n");
      }
      return FALSE;
    }
    case "facts":
      b.print(factsListing(b.wm.all(), n(0) ?? -1, n(1) ?? -1, n(2) ?? -1));
      return FALSE;
    case "agenda":
      b.print(b.agendaText());
      return FALSE;
    case "exit":
      b.exit();
      return FALSE;
    default:
      return null;
  }
}
