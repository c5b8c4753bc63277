import type { SourcePos } from "./reader.js";
import type { Value } from "./values.js";

/** An expression: a constant, a variable, a function call, or one of the special forms. */
export type Expr =
  | { readonly k: "const"; readonly v: Value }
  | { readonly k: "var"; readonly name: string; readonly mf: boolean; readonly pos: SourcePos }
  | {
      readonly k: "call";
      readonly fn: string;
      readonly args: Expr[];
      readonly pos: SourcePos;
      /** A system function a generic function overloads: the call dispatches to the generic. */
      readonly generic?: true;
    }
  | { readonly k: "assert"; readonly facts: FactSpec[]; readonly pos: SourcePos }
  | {
      readonly k: "modify" | "duplicate";
      readonly target: Expr;
      readonly slots: SlotSpec[];
      readonly pos: SourcePos;
    }
  | { readonly k: "if"; readonly cond: Expr; readonly thenDo: Expr[]; readonly elseDo: Expr[] }
  | { readonly k: "while"; readonly cond: Expr; readonly body: Expr[] }
  | {
      readonly k: "bind";
      readonly name: string;
      readonly value: Expr[];
      readonly pos: SourcePos;
      /** True for `(bind ?*name* …)`: a defglobal. */
      readonly global?: boolean;
    }
  /** `?*name*`: a defglobal's value. */
  | { readonly k: "gvar"; readonly name: string; readonly pos: SourcePos }
  /** `(loop-for-count [(?v from to) | n] [do] action…)`; `v` null without a variable. */
  | {
      readonly k: "loop";
      readonly v: string | null;
      readonly from: Expr;
      readonly to: Expr;
      readonly body: Expr[];
    }
  /** `(progn$ (?v list) action…)` and `foreach`: `?v` and `?v-index` each time round. */
  | { readonly k: "foreach"; readonly v: string; readonly list: Expr; readonly body: Expr[] }
  /**
   * `(make-instance [name] of CLASS (slot value…)…)`; `name` null for a generated one. With
   * `modify`, `(modify-instance target (slot value…)…)`: `name` is the target, `cls` unused.
   */
  | {
      readonly k: "make-instance";
      readonly modify?: boolean;
      /** `message-modify-instance`, `message-duplicate-instance`: slots put by put- messages. */
      readonly byMessage?: boolean;
      /** `(initialize-instance target (slot value…)…)`: `name` is the target. */
      readonly initialize?: boolean;
      /** `(duplicate-instance target [to NAME] (slot value…)…)`: `name` is the target. */
      readonly duplicate?: { readonly to: Expr | null };
      readonly name: Expr | null;
      readonly cls: Expr;
      /** `nameExpr`: a slot name written as an expression (`((sym-cat x y) 1)`), found when run. */
      readonly slots: readonly {
        readonly name: string;
        readonly nameExpr?: Expr;
        readonly values: Expr[];
      }[];
      readonly pos: SourcePos;
    }
  /** An instance-set or fact-set query: `(do-for-all-instances ((?v CLASS…)…) query action…)`. */
  | {
      readonly k: "query";
      readonly fn: string;
      readonly vars: readonly { readonly name: string; readonly among: Expr[] }[];
      readonly query: Expr;
      readonly body: Expr[];
      readonly pos: SourcePos;
    }
  /** `(switch value (case x then action…)… [(default action…)])`. */
  | {
      readonly k: "switch";
      readonly value: Expr;
      readonly cases: { readonly test: Expr; readonly body: Expr[] }[];
      readonly otherwise: Expr[];
    };

/** A fact to assert: ordered `(a ?x 1)` or template `(person (name ?n))`. */
export type FactSpec =
  | {
      readonly kind: "ordered";
      readonly relation: string;
      readonly fields: Expr[];
      readonly pos: SourcePos;
    }
  | {
      readonly kind: "template";
      readonly template: Template;
      readonly slots: SlotSpec[];
      readonly pos: SourcePos;
    };

/** `(slot-name expr…)` in a template fact, modify or duplicate. */
export interface SlotSpec {
  readonly name: string;
  readonly values: Expr[];
  readonly pos: SourcePos;
}

/** One deftemplate slot. */
export interface SlotDef {
  readonly name: string;
  readonly multi: boolean;
  /** `none` = `(default ?NONE)`; `derive` = from the type; `static` = the given values; `dynamic` = re-evaluated per fact. */
  readonly default: { kind: "none" | "derive" | "static" | "dynamic"; exprs: Expr[] };
  /** Allowed CLIPS types (SYMBOL, STRING, LEXEME, INTEGER, FLOAT, NUMBER, ?VARIABLE), or null for any. */
  readonly types: readonly string[] | null;
  readonly allowed: readonly Value[] | null;
  /** The types `allowed` restricts (allowed-symbols: SYMBOL, …); null or absent: every type. */
  readonly allowedTypes?: readonly string[] | null;
  /** The `(range min max)` bounds (null: ?VARIABLE or no range); not enforced. */
  readonly range?: readonly [Value | null, Value | null];
  /** A multislot's `(cardinality min max)` bounds (null: ?VARIABLE); not enforced. */
  readonly cardinality?: readonly [number | null, number | null];
  /**
   * `(allowed-classes C…)`: whether an instance name or address fits (an instance of a listed
   * class or a subclass, as the object system answers when checked). Absent: no such attribute.
   */
  readonly classAllowed?: ((v: Value) => boolean) | null;
}

export interface Template {
  readonly name: string;
  /**
   * The relation its facts and patterns carry when the template is not MAIN's: its
   * module-qualified key (`module-scope.ts`); absent, the name.
   */
  readonly key?: string;
  readonly slots: readonly SlotDef[];
  readonly slotIndex: ReadonlyMap<string, number>;
  /** The deftemplate text, kept for snapshots. */
  readonly source: string;
}

/** One term of a connected constraint, e.g. `~red`, `?x`, `:(> ?x 1)`, `=(+ ?y 1)`. */
export type Term =
  | { readonly kind: "lit"; readonly neg: boolean; readonly value: Value }
  | {
      readonly kind: "var";
      readonly neg: boolean;
      readonly name: string;
      readonly mf: boolean;
      readonly pos: SourcePos;
    }
  | { readonly kind: "pred" | "ret"; readonly neg: boolean; readonly expr: Expr };

/** A constraint on one field: OR of ANDs of terms; an empty list means a wildcard. */
export interface FieldConstraint {
  /** True for `$?x`, `$?` and constraints starting with them: the field spans zero or more values. */
  readonly multi: boolean;
  readonly alts: Term[][];
  readonly pos: SourcePos;
}

/** A pattern: `(a ?x $?rest)` or `(person (name ?n) (tags $?t))`, maybe bound `?f <- (…)`. */
export interface PatternCE {
  readonly type: "pattern";
  readonly relation: string;
  readonly template: Template | null;
  /** Ordered patterns: the field constraints after the relation name. */
  readonly fields: FieldConstraint[];
  /** Template patterns: constraints per slot index (single slot: one constraint; multislot: a sequence). */
  readonly slots: ReadonlyMap<number, FieldConstraint[]>;
  readonly addressVar: string | null;
  readonly pos: SourcePos;
  readonly source: string;
  /** An object pattern `(object (is-a C…) (slot …)…)`: what the instance's class must be and have. */
  readonly object?: ObjectPatternInfo;
}

/** What an object pattern requires of an instance's class, beyond its slot constraints. */
export interface ObjectPatternInfo {
  /**
   * `(is-a A B)`: the class is one of these or a subclass of one; null: any reactive class. Each
   * is `MOD::NAME` as the rule's module resolved it, or a bare name (any module's class of it).
   */
  readonly classes: readonly string[] | null;
  /** The object template's slot indices the pattern names (the class must have each). */
  readonly slots: readonly number[];
}

export type CE =
  | PatternCE
  | { readonly type: "test"; readonly expr: Expr; readonly pos: SourcePos }
  | { readonly type: "not"; readonly ce: CE; readonly pos: SourcePos }
  | { readonly type: "and"; readonly ces: CE[]; readonly pos: SourcePos }
  | { readonly type: "or"; readonly ces: CE[]; readonly pos: SourcePos }
  | { readonly type: "exists"; readonly ces: CE[]; readonly pos: SourcePos }
  | { readonly type: "forall"; readonly first: CE; readonly rest: CE[]; readonly pos: SourcePos };

export interface RuleAst {
  readonly name: string;
  readonly salience: number;
  /** `(salience <global or call>)`: evaluated as set-salience-evaluation says. */
  readonly salienceExpr?: Expr;
  /** The defmodule the rule belongs to (absent: MAIN). */
  readonly module?: string;
  readonly autoFocus?: boolean;
  /** How many leading CEs the `(logical …)` CE held (absent: none). */
  readonly logical?: number;
  readonly ces: CE[];
  readonly actions: Expr[];
  readonly pos: SourcePos;
  readonly source: string;
}

export interface DeffactsAst {
  readonly name: string;
  readonly facts: FactSpec[];
  readonly source: string;
}

/** `(deffunction name ["comment"] (?a ?b [$?rest]) action…)`. */
export interface DeffunctionAst {
  readonly name: string;
  readonly params: readonly string[];
  /** The `$?rest` parameter that takes the remaining arguments, or null. */
  readonly rest: string | null;
  readonly body: Expr[];
  readonly source: string;
}

/** One slot of a defclass. */
export interface ClassSlotAst {
  readonly name: string;
  readonly multi: boolean;
  readonly defaults: Expr[];
  /** True for `(default-dynamic …)`: evaluated for each new instance. */
  readonly dynamic: boolean;
  /** The accessors `create-accessor` asks for (`none` for ?NONE). */
  readonly access: "read" | "write" | "read-write" | "none";
  /** `(default ?NONE)`: every new instance must be given a value. */
  readonly required: boolean;
  /** The facets describe-class lists (`facet` as written; absent: CLIPS's default). */
  readonly facets: ClassSlotFacets;
}

/** The slot facets Keel records for describe-class and visibility (not all enforced). */
export interface ClassSlotFacets {
  readonly visibility: "private" | "public";
  readonly storage: "local" | "shared";
  readonly propagation: "inherit" | "no-inherit";
  readonly source: "exclusive" | "composite";
  readonly reactive: boolean;
  readonly accessMode: "read-write" | "read-only" | "initialize-only";
  /** `create-accessor` as given; null when the class defaults mode decides. */
  readonly createAccessor: "read" | "write" | "read-write" | "none" | null;
  /** `override-message`; null: `put-SLOT`. */
  readonly overrideMessage: string | null;
  /** The slot's constraints as describe-class shows them (not enforced). */
  readonly constraints: SlotConstraintFacets;
  /** The facets written (`field` for single-slot/multislot, `default` for either default). */
  readonly given: readonly string[];
}

/** A slot's type, allowed-…, range and cardinality facets, as written. */
export interface SlotConstraintFacets {
  /** The `type` facet's words (null: any type). */
  readonly types: readonly string[] | null;
  /** The allowed-… facets given (`allowed-symbols`, `allowed-values`, …). */
  readonly allowed: readonly string[];
  /** The constants the allowed-… facets list, in order (a derived default takes the first). */
  readonly allowedValues: readonly Value[];
  /** The classes `allowed-classes` lists (kept apart: they restrict no value, only instances). */
  readonly allowedClasses: readonly string[];
  /** `range` and `cardinality` as written (`?VARIABLE` for an open end). */
  readonly range: readonly [string, string] | null;
  readonly cardinality: readonly [string, string] | null;
}

/** `(defclass NAME (is-a SUPER…) [(role concrete|abstract)] (slot …)…)`. */
export interface DefclassAst {
  readonly name: string;
  readonly supers: readonly string[];
  /** Where `(is-a …)` starts (CLIPS's precedence error echoes the class through it). */
  readonly isaPos?: SourcePos;
  /** `(role abstract)`: true; `(role concrete)`: false; null: inherited. */
  readonly abstract: boolean | null;
  /** `(pattern-match reactive)`: true; `non-reactive`: false; null: inherited. */
  readonly reactive: boolean | null;
  readonly slots: readonly ClassSlotAst[];
  readonly source: string;
}

/** `(defmessage-handler CLASS name [primary|before|after|around] (?a… [$?rest]) action…)`. */
export interface HandlerAst {
  readonly cls: string;
  readonly name: string;
  readonly type: "primary" | "before" | "after" | "around";
  readonly params: readonly string[];
  readonly rest: string | null;
  /** Where the parameter list starts (CLIPS's echo of some errors stops at its `(`). */
  readonly paramsPos?: SourcePos;
  readonly body: Expr[];
  readonly source: string;
}

/** One parameter restriction of a defmethod: `(?x INTEGER FLOAT (> ?x 0))` or `?x`. */
export interface MethodParam {
  readonly name: string;
  readonly types: readonly string[];
  readonly query: Expr | null;
}

/** `(defmethod name [index] (param… [$?rest]) action…)`. */
export interface MethodAst {
  readonly name: string;
  /** The index the defmethod gives (`(defmethod f 3 …)`), or 0. */
  readonly index?: number;
  readonly params: readonly MethodParam[];
  readonly rest: MethodParam | null;
  readonly body: Expr[];
  readonly source: string;
}

/** `(definstances name [active] (inst of CLASS (slot v…)…)…)`. */
export interface DefinstancesAst {
  readonly name: string;
  readonly instances: readonly {
    readonly name: Expr | null;
    readonly cls: string;
    readonly slots: readonly { readonly name: string; readonly values: Expr[] }[];
  }[];
  readonly source: string;
}
