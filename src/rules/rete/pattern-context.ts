/**
 * What compiling a pattern works with: where earlier patterns' variables live in a token, the
 * compile context of one pattern, and the helpers both the pattern planner and the join builder
 * use (variables of an expression, place names, error wrapping).
 */
import { isKeelError } from "../../core/index.js";
import type { Expr, Term } from "../ast.js";
import { clipsMessageText, noteEvaluationError } from "../clips-messages.js";
import { rulesRuntimeError } from "../errors.js";
import type { Compiled, EvalHost } from "../evaluate.js";
import { FALSE, type Value } from "../values.js";
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
  if (!read) return (f) => (matchAt(f.tok as Token, slot) as AlphaMatch).fact.address();
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
  /** The template's slot names (empty for an ordered pattern), for CLIPS's error messages. */
  readonly slotNames: readonly string[];
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

/** The fact the pattern network is matching now (CLIPS names it in `[FACTMCH1]`). */
let matching: { toString(): string } | null = null;

/** Set by the alpha network around each fact it runs through the pattern network. */
export function setMatchingFact(fact: { toString(): string } | null): void {
  matching = fact;
}

/** Where a guarded test sits: a field of the pattern (its description) or the join. */
export type TestPlace = { readonly field: string } | "join";

/**
 * Wraps a pattern or join test. An evaluation error is CLIPS's: it prints the function's message
 * and where the error occurred (`[FACTMCH1]` in the pattern network, `[DRIVE1]` in the join
 * network), the test counts as false, and matching goes on.
 */
export function guard(
  fn: Compiled,
  ctx: { rule: string; patternNo: number },
  place: TestPlace = "join",
): Compiled {
  return (f) => {
    try {
      return fn(f);
    } catch (e) {
      const report = f.host.matchError;
      if (
        report &&
        isKeelError(e) &&
        e.code === "RULES_RUNTIME" &&
        typeof e.details.clips === "string"
      ) {
        const where =
          place === "join"
            ? "\n[DRIVE1] This error occurred in the join network\n   Problem resides in associated join\n"
            : `\n[FACTMCH1] This error occurred in the fact pattern network\n   Currently active fact: ${String(matching)}\n   Problem resides in ${place.field}\n`;
        f.host.print(
          "t",
          `${clipsMessageText(e.details.clips)}${where}      Of pattern #${ctx.patternNo} in rule ${ctx.rule}\n\n`,
        );
        noteEvaluationError();
        report(
          rulesRuntimeError(e.message.replace(/\.$/, ""), {
            rule: ctx.rule,
            pattern: ctx.patternNo,
            clips: e.details.clips,
          }),
        );
        return FALSE;
      }
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
