/**
 * What compiling a pattern works with: where earlier patterns' variables live in a token, the
 * compile context of one pattern, and the helpers both the pattern planner and the join builder
 * use (variables of an expression, place names, error wrapping).
 */
import { isKeelError } from "../../core/index.js";
import type { Expr, Term } from "../ast.js";
import { rulesRuntimeError } from "../errors.js";
import type { Compiled, EvalHost } from "../evaluate.js";
import type { Value } from "../values.js";
import { type FieldPos, getterKey } from "./field-place.js";
import { type AlphaMatch, matchAt, type Token } from "./memory.js";
import type { FieldRead } from "./pattern-net.js";

/**
 * Where a variable bound on the left-hand side lives: the token position of its pattern, and how
 * to read it from that pattern's fact (null: the fact itself, for `?f <- (…)`). `key` names the
 * place, so that tests reading the same places compare equal, as CLIPS compares expressions.
 */
export interface VarLoc {
  readonly slot: number;
  readonly read: FieldRead | null;
  readonly key: string;
}

export type Scope = Map<string, VarLoc>;

/** Reads a variable from a token's matches. */
export function tokenReader(loc: VarLoc): Compiled {
  const { slot, read } = loc;
  if (!read) return (f) => (matchAt(f.tok as Token, slot) as AlphaMatch).fact;
  return (f) => {
    const am = matchAt(f.tok as Token, slot) as AlphaMatch;
    return read(am.fact, am.marks);
  };
}

/** How a pattern binds a variable: read from its fact (null: the fact's address). */
export interface Binding {
  readonly read: FieldRead | null;
  readonly key: string;
}

/** The compile context of one pattern: its fields' places and readers, and what its join needs. */
export interface Context {
  readonly outer: Scope;
  readonly locals: Map<string, number>;
  /**
   * Variables of earlier patterns by the field of this pattern that first reads them: later
   * fields compare with that field, in the pattern network (they bind nothing new).
   */
  readonly refs: Map<string, number>;
  nextSlot: number;
  readonly host: () => EvalHost;
  readonly rule: string;
  readonly patternNo: number;
  readonly construct: string;
  readonly ordered: boolean;
  /** Per local slot: where the value sits, and how to read it. */
  readonly pos: FieldPos[];
  readonly reads: FieldRead[];
  readonly scratch: Value[];
  /** Variables bound outside the enclosing not/exists group (CLIPS does not hash on them). */
  readonly external: ReadonlySet<string>;
  readonly hashPairs: { outer: VarLoc; slot: number }[];
  readonly joinTests: { slot: number; alts: Term[][] }[];
  readonly extraTests: Expr[];
}

/** Variables an expression reads. */
export function exprVars(e: Expr, out: Set<string> = new Set()): Set<string> {
  switch (e.k) {
    case "var":
      out.add(e.name);
      break;
    case "call":
      for (const a of e.args) exprVars(a, out);
      break;
    case "if":
      exprVars(e.cond, out);
      for (const x of [...e.thenDo, ...e.elseDo]) exprVars(x, out);
      break;
    default:
      break;
  }
  return out;
}

/** Names a variable of a pattern test by its place: this pattern's field, or an earlier pattern's. */
export function placeKey(name: string, ctx: Context): string {
  const idx = ctx.locals.get(name);
  if (idx !== undefined) return idx < 0 ? "fact" : getterKey(ctx.pos[idx] as FieldPos);
  const o = ctx.outer.get(name);
  return o ? `${o.slot}:${o.key}` : `?${name}`;
}

/** Wraps evaluation errors with the rule and pattern, as the issue asks. */
export function guard(fn: Compiled, ctx: { rule: string; patternNo: number }): Compiled {
  return (f) => {
    try {
      return fn(f);
    } catch (e) {
      if (isKeelError(e) && e.code === "RULES_RUNTIME" && e.details.rule === undefined) {
        throw rulesRuntimeError(e.message.replace(/\.$/, ""), {
          rule: ctx.rule,
          pattern: ctx.patternNo,
          clips: e.details.clips as string | undefined,
        });
      }
      throw e;
    }
  };
}
