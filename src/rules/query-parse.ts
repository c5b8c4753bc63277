/**
 * The instance-set and fact-set query functions' syntax (CLIPS BPG 9.7 and 12.9.12; insqypsr.c,
 * factqpsr.c): `(fn ((?v CLASS-or-TEMPLATE…)…) query action…)`, with CLIPS's messages for each
 * malformed part, so a bad query is refused when it is read, as CLIPS refuses it.
 *
 * @example
 * // (any-instancep ((?b BOGUS)) TRUE) → "[PRNTUTIL1] Unable to find class BOGUS."
 */
import type { Expr } from "./ast.js";
import { rulesLoadError, rulesRuntimeError } from "./errors.js";
import type { SList, SNode } from "./reader.js";
import { formatValue, isMultifield, isSymbol, type Value } from "./values.js";

/** What the query parser asks about the engine (see ParseContext in parse-expr.ts). */
export interface QueryParseContext {
  /** Whether a deftemplate exists, implied ones included (absent: any name is taken). */
  hasDeftemplate?(name: string): boolean;
  /** Whether a class is defined (absent: every class name is taken as defined). */
  hasClass?(name: string): boolean;
  construct?: string;
}

/** The instance-set/fact-set words CLIPS's messages use for query function `fn`. */
export function querySet(fn: string): { set: string; kind: string; id: string } {
  return fn.includes("fact")
    ? { set: "fact-set", kind: "deftemplate", id: "FACTQPSR" }
    : { set: "instance-set", kind: "class", id: "INSQYPSR" };
}

/** Reads a query call; `parseExpr` reads its query and actions. */
export function parseQuery<C extends QueryParseContext>(
  list: SList,
  fn: string,
  ctx: C,
  parseExpr: (node: SNode, ctx: C) => Expr,
): Expr {
  const { set, kind, id } = querySet(fn);
  // The echo of a construct stops at `node`; `after` is what CLIPS had written past it.
  const fail = (node: SNode, clips: string, after = ""): Error =>
    rulesLoadError(node.pos, `${fn}: ${clips.replace(/^\[[A-Z0-9]+\] /, "")}`, {
      construct: ctx.construct,
      clips,
      echoThrough: true,
      ...(after === "" ? {} : { echoAfter: after }),
    });
  const syntax = (node: SNode, after = ""): Error =>
    fail(
      node,
      `[PRNTUTIL2] Syntax Error:  Check appropriate syntax for ${set} query function.`,
      after,
    );
  const spec = list.items[1];
  if (spec?.type !== "list" || spec.items.length === 0) throw syntax(spec ?? list);
  const names = new Set<string>();
  const vars = spec.items.map((v) => {
    const head = v.type === "list" ? v.items[0] : undefined;
    if (v.type !== "list" || head?.type !== "atom" || head.kind !== "sfvar") {
      throw syntax(head ?? v);
    }
    if (names.has(head.text)) {
      const member = set === "fact-set" ? "fact" : "instance";
      throw fail(head, `[${id}1] Duplicate ${member} member variable name in function ${fn}.`);
    }
    names.add(head.text);
    if (v.items.length < 2) throw syntax(head, " )");
    const among = v.items.slice(1).map((n) => {
      if (n.type === "atom" && n.kind === "symbol" && !known(ctx, n.text, kind)) {
        throw fail(n, `[PRNTUTIL1] Unable to find ${kind} ${n.text}.`);
      }
      return parseExpr(n, ctx);
    });
    return { name: head.text, among };
  });
  const queryNode = list.items[2];
  // CLIPS had begun the query's line (a body action's depth, the usual place) when it read `)`.
  if (queryNode === undefined) throw syntax(spec, "\n      )");
  // The query may bind no local variable at all (globals it may).
  const rebound = boundMember(queryNode, null);
  if (rebound !== null) {
    throw fail(queryNode, `[${id}2] Binds are not allowed in ${set} query in function ${fn}.`);
  }
  const actions = list.items.slice(3);
  const acts = fn.startsWith("do-") || fn.startsWith("delayed-");
  const extra = actions[0];
  if (!acts && extra !== undefined) {
    // CLIPS read the next token before it found it was one too many.
    throw syntax(queryNode, extra.type === "atom" ? extra.text : "(");
  }
  for (const a of actions) {
    const name = boundMember(a, names);
    if (name !== null) {
      const msg = `[${id}3] Cannot rebind ${set} member variable ${name} in function ${fn}.`;
      throw fail(list, msg);
    }
  }
  return {
    k: "query",
    fn,
    vars,
    query: parseExpr(queryNode, ctx),
    body: actions.map((n) => parseExpr(n, ctx)),
    pos: list.pos,
  };
}

function known(ctx: QueryParseContext, name: string, kind: string): boolean {
  // Without the engine's answer (checkRules) any name is taken: an implied one may exist.
  if (kind === "deftemplate") return ctx.hasDeftemplate?.(name) ?? true;
  return ctx.hasClass?.(name) ?? true;
}

/** The variable of `names` (null: any local one) a `(bind ?v …)` inside `node` sets, if any. */
function boundMember(node: SNode, names: ReadonlySet<string> | null): string | null {
  if (node.type !== "list") return null;
  const [head, target] = node.items;
  if (
    head?.type === "atom" &&
    head.text === "bind" &&
    target?.type === "atom" &&
    target.kind === "sfvar" &&
    (names === null || names.has(target.text))
  ) {
    return target.text;
  }
  for (const item of node.items) {
    const found = boundMember(item, names);
    if (found !== null) return found;
  }
  return null;
}

/**
 * The class (or deftemplate) names a query's restrictions evaluated to, multifields spread, as
 * CLIPS checks them when the query runs: a value that is no symbol is a syntax error, an unknown
 * name CLIPS's "Unable to find" message followed by that syntax error.
 */
export function queryRestrictionNames(
  fn: string,
  values: readonly Value[],
  exists: (name: string) => boolean,
): string[] {
  const { set, kind } = querySet(fn);
  const syntax = `[PRNTUTIL2] Syntax Error:  Check appropriate syntax for ${set} query class restrictions.`;
  const names: string[] = [];
  for (const v of values.flatMap((x) => (isMultifield(x) ? [...x] : [x]))) {
    if (!isSymbol(v)) {
      throw rulesRuntimeError(`${fn}: ${formatValue(v)} is no ${kind} name`, { clips: syntax });
    }
    if (!exists(v)) {
      const id = kind === "class" ? "CLASSFUN1" : "PRNTUTIL1";
      throw rulesRuntimeError(`${fn}: ${kind} ${v} is not defined`, {
        clips: `[${id}] Unable to find ${kind} ${v} in function ${fn}.\n${syntax}`,
      });
    }
    names.push(v);
  }
  return names;
}
