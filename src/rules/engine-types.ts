import type { KeelError } from "../core/index.js";
import type { RuleLimits } from "./limits.js";
/** The rule engine's public data types: what the host passes in and gets back. */
import type { EncodedValue, Value } from "./values.js";

/** A function the host registers for rules to call; it receives CLIPS values (see values.ts). */
export type HostFunction = (...args: Value[]) => unknown;

/** One rule firing, for explanations and `--json`. */
export interface Firing {
  readonly rule: string;
  /** Indices of the facts matched by the rule's positive patterns, in pattern order. */
  readonly facts: number[];
  /** Names of the instances its object patterns matched, in pattern order (none: absent). */
  readonly instances?: readonly string[];
  /** The left-hand-side variables and their values (plain JSON). */
  readonly bindings: Record<string, unknown>;
  /** The host action list of a rule defined with defineRule, if any. */
  readonly actions?: readonly unknown[];
}

/** An activation on the agenda, as data. */
export interface AgendaEntry {
  readonly rule: string;
  readonly salience: number;
  /** Each pattern's fact index; null for a not/exists CE and for an object pattern. */
  readonly facts: (number | null)[];
  /** Names of the instances its object patterns matched, in pattern order (none: absent). */
  readonly instances?: readonly string[];
  readonly bindings: Record<string, unknown>;
}

/** A fact as data. */
export interface FactData {
  readonly id: number;
  readonly relation: string;
  /** Ordered facts: the fields. */
  readonly fields?: unknown[];
  /** Template facts: slot name → value. */
  readonly slots?: Record<string, unknown>;
  /** The fact as CLIPS prints it: `(a 1 "x")`. */
  readonly text: string;
}

/** How a host describes a fact: CLIPS text, an ordered fact or a template fact. */
export type FactInput =
  | string
  | { relation: string; fields?: unknown[] }
  | { template: string; slots?: Record<string, unknown> };

/** A rule defined from TypeScript: CLIPS conditions, optional CLIPS actions and a host action list. */
export interface RuleDefinition {
  readonly name: string;
  readonly salience?: number;
  /** One or more conditional elements, e.g. `(severity ?s&:(>= ?s 4))`. */
  readonly when: string;
  /** Optional CLIPS actions, e.g. `(assert (alert))`. */
  readonly then?: string;
  /** Data the host acts on when the rule fires (the IR's `then` actions); returned in the firing. */
  readonly actions?: readonly unknown[];
}

/** The whole engine state as plain JSON, for checkpoints. */
export interface EngineSnapshot {
  readonly format: "keel.rules/1";
  /** Each construct's text and the module current when it was defined (absent: MAIN). */
  readonly constructs: { source: string; actions?: readonly unknown[]; module?: string }[];
  readonly facts: { id: number; relation: string; values: EncodedValue[] }[];
  readonly nextFactId: number;
  readonly agenda: {
    rule: string;
    facts: (number | null)[];
    timetag: number;
    /** Which `or` disjunct of the rule (absent: the first). */
    disjunct?: number;
  }[];
  readonly clock: number;
  /** The explanation log (explain()); absent in snapshots written before it was kept. */
  readonly firings?: readonly Firing[];
  /** The focus stack, bottom first (absent: MAIN alone). */
  readonly focus?: string[];
  /** The defglobals' current values (absent when there are none). */
  readonly globals?: Record<string, EncodedValue>;
  /** COOL instances, oldest first (absent: none besides `[initial-object]`), and gensym's counter. */
  readonly instances?: readonly {
    readonly name: string;
    readonly cls: string;
    /** Its fact index in the Rete (activations name it); absent in older snapshots. */
    readonly tag?: number;
    readonly slots: Record<string, EncodedValue>;
  }[];
  readonly gensym?: number;
  /** genN names gensym* skips though no instance has them (CLIPS's symbol table keeps them). */
  readonly heldGensyms?: readonly string[];
  /** The classes defined in conservation mode (their facets default differently). */
  readonly conservationClasses?: readonly string[];
  /** `(set-class-defaults-mode conservation)` in effect. */
  readonly classDefaultsMode?: "conservation";
  /** The current module (absent: MAIN); replaying the defmodules alone would leave the last. */
  readonly module?: string;
  /** The rules with a breakpoint (`set-break`; absent: none). */
  readonly breaks?: readonly string[];
  /**
   * The implied deftemplates (`MODULE::name`) top-level commands made, listed by
   * list-deftemplates (absent: none); those of a rule or deffacts are remade by replaying it.
   */
  readonly impliedTemplates?: readonly string[];
  /**
   * Rules defined with incremental reset off since the last reset, each with the next fact index
   * when it was defined: only the facts from there on reached it (absent: none).
   */
  readonly unprimedRules?: readonly (readonly [string, number])[];
  /** Deffunctions `(undeffunction *)` left empty and without text (absent: none). */
  readonly hollowFunctions?: readonly string[];
  /** Logical support (truth maintenance): absent when no fact has any. */
  readonly logical?: LogicalSnapshot;
}

/** Logical support as plain JSON (absent from a snapshot when no fact has any). */
export interface LogicalSnapshot {
  /** Each partial match giving support, with the facts it supports, newest first. */
  readonly matches: readonly {
    readonly rule: string;
    /** Which `or` disjunct of the rule (absent: the first). */
    readonly disjunct?: number;
    /** The place in the disjunct's path of the node that made the partial match. */
    readonly node: number;
    /** Its fact ids, null for a not CE. */
    readonly facts: readonly (number | null)[];
    /** What it supports: fact ids, and instances' tags (as `tag` in `instances`). */
    readonly supports: readonly number[];
    /** The rule that asserted each of `supports`, when one is not `rule` (rules sharing it). */
    readonly rules?: readonly string[];
  }[];
  /** Each supported fact and its supporting matches (indexes into `matches`), in the order kept. */
  readonly facts: readonly (readonly [number, readonly number[]])[];
}

export interface RuleEngineOptions {
  /** Host functions callable from rules, by name. */
  functions?: Record<string, HostFunction>;
  /** Where `printout` goes (router `t`); by default it is collected in `output`. */
  onPrint?: (text: string) => void;
  /**
   * Standard input for `read`, `readline` and `read-number`: returns the next chunk of text, or
   * null at the end. Without it the input is empty (they answer EOF).
   */
  input?: () => string | null;
  /** Bounds on evaluation over `DEFAULT_RULE_LIMITS` (firings, loops, facts, wall time, log). */
  limits?: Partial<RuleLimits>;
  /**
   * CLIPS's handling of a pattern or join test that fails to evaluate: given this, the engine
   * prints CLIPS's message (`[FACTMCH1]`/`[DRIVE1]`), passes the error here, treats the test as
   * false and goes on matching. Without it the assert throws and changes nothing (the default
   * for hosts). `runBatch` sets it.
   */
  onMatchError?: (error: KeelError) => void;
}
