/**
 * Compiles a pattern CE as CLIPS 6.30 does (factgen.c, factbld.c): tests on the pattern's own
 * fields become its path through the relation's pattern tree; tests on earlier patterns'
 * variables go to its join (join-build.ts).
 */
import type { Expr, FieldConstraint, ObjectPatternInfo, PatternCE } from "../ast.js";
import { rulesLoadError } from "../errors.js";
import type { EvalHost } from "../evaluate.js";
import type { Fact } from "../facts.js";
import { objectClassTest, whenSlotExists } from "../object-match.js";
import { lastClassSerial } from "../objects.js";
import type { Multifield, Value } from "../values.js";
import type { JoinSpec } from "./beta.js";
import { type FieldPos, getterKey, litKey } from "./field-place.js";
import { type FieldPlan, planField } from "./field-plan.js";
import { buildJoin } from "./join-build.js";
import type { Binding, Context, Scope } from "./pattern-context.js";
import {
  CLASS_TEST_SLOT,
  type FieldRead,
  type NodeTest,
  OBJECT_BITMAP_SLOT,
  type PatternStep,
} from "./pattern-net.js";

/** What compiling a pattern gives: its path through the pattern tree, its join, its variables. */
export interface CompiledPattern {
  readonly steps: PatternStep[];
  readonly join: JoinSpec;
  /** Variables first bound by this pattern. */
  readonly bindings: Map<string, Binding>;
}

/** A node-to-be of a pattern's path, before its identity is final. */
interface PendingStep {
  readonly kind: "sf" | "mf";
  readonly slot: number;
  readonly field: number;
  readonly leave: number;
  readonly multislot: boolean;
  readonly group: number;
  readonly keys: string[];
  readonly test: NodeTest | null;
  readonly selector: {
    readonly pre: NodeTest | null;
    readonly preKey: string;
    readonly read: FieldRead;
    readonly getter: string;
    readonly value: Value;
  } | null;
}

/**
 * A pending step in one fixed shape: built field by field rather than by spreading a shared
 * base, which sent every pattern through V8's slow object-clone path.
 */
function pendingStep(
  kind: "sf" | "mf",
  at: { slot: number; field: number; leave: number; multislot: boolean; group: number },
  keys: string[],
  test: NodeTest | null,
  selector: PendingStep["selector"],
): PendingStep {
  return {
    kind,
    slot: at.slot,
    field: at.field,
    leave: at.leave,
    multislot: at.multislot,
    group: at.group,
    keys,
    test,
    selector,
  };
}

function both(a: NodeTest | null, b: NodeTest | null): NodeTest | null {
  if (!a) return b;
  if (!b) return a;
  return (f, m) => a(f, m) && b(f, m);
}

/** The node test of a field: reads the field and the locals its check needs, then checks. */
function fieldTest(plan: FieldPlan, ctx: Context): NodeTest | null {
  const check = plan.check;
  if (!check) return null;
  const read = ctx.reads[plan.slot] as FieldRead;
  const self = plan.slot;
  const scratch = ctx.scratch;
  const others = plan.reads.map((i) => ({ i, read: ctx.reads[i] as FieldRead }));
  if (others.length === 0) {
    return (f, m) => {
      const v = read(f, m);
      scratch[self] = v;
      return check(v, scratch);
    };
  }
  return (f, m) => {
    for (const o of others) scratch[o.i] = o.read(f, m);
    const v = read(f, m);
    scratch[self] = v;
    return check(v, scratch);
  };
}

/**
 * Plans one multifield slot (an ordered fact's fields, or a multislot) as factbld.c does: the
 * first field also checks the slot's length; a single field without a test needs no node; a
 * lone multifield needs none either, or becomes a single node if it has a test; two or more
 * multifields each get a node that tries every length.
 */
function planMultislot(
  fcs: readonly FieldConstraint[],
  slot: number,
  ctx: Context,
  group: number,
  out: PendingStep[],
): void {
  const arr = ctx.ordered
    ? (f: Fact) => f.values as Multifield
    : (f: Fact) => f.values[slot] as Multifield;
  if (fcs.length === 0) {
    out.push({
      kind: "sf",
      slot,
      field: 0,
      leave: 0,
      multislot: false,
      group: -1,
      keys: [`len:${slot}:1:0`],
      test: (f) => arr(f).length === 0,
      selector: null,
    });
    return;
  }
  const n = fcs.length;
  const mfTotal = fcs.filter((fc) => fc.multi).length;
  const sfTotal = n - mfTotal;
  let sf = 0;
  let mf = 0;
  const positions = fcs.map((fc, i) => {
    const p: FieldPos = {
      slot,
      inMulti: true,
      index: i + 1,
      multi: fc.multi,
      sfBefore: sf,
      mfBefore: mf,
      sfAfter: sfTotal - sf - (fc.multi ? 0 : 1),
      mfAfter: mfTotal - mf - (fc.multi ? 1 : 0),
    };
    if (fc.multi) mf++;
    else sf++;
    return p;
  });
  const first = positions[0] as FieldPos;
  // FactGenCheckLength: none when the slot has multifields only.
  let lenKey = "";
  let lenTest: NodeTest | null = null;
  if (first.sfAfter > 0 || !first.multi) {
    const exactly = mfTotal === 0;
    lenKey = `len:${slot}:${exactly ? 1 : 0}:${sfTotal}`;
    lenTest = exactly ? (f) => arr(f).length === sfTotal : (f) => arr(f).length >= sfTotal;
  }
  fcs.forEach((fc, i) => {
    const p = positions[i] as FieldPos;
    const plan = planField(fc, ctx, p);
    const pre = i === 0 ? lenTest : null;
    const preKey = i === 0 ? lenKey : "";
    const base = { slot, field: p.index, leave: p.sfAfter, multislot: true, group };
    if (plan.constant && !fc.multi) {
      out.push(
        pendingStep("sf", base, [], null, {
          pre,
          preKey,
          read: ctx.reads[plan.slot] as FieldRead,
          getter: getterKey(p),
          value: plan.constant.value,
        }),
      );
      return;
    }
    const keys = preKey ? [preKey, ...plan.keys] : plan.keys;
    const test = both(pre, fieldTest(plan, ctx));
    if (!fc.multi || mfTotal === 1) {
      if (keys.length === 0) return;
      out.push(pendingStep("sf", base, keys, test, null));
      return;
    }
    out.push(pendingStep("mf", base, keys, test, null));
  });
}

let bareNodes = 0;

/**
 * An object pattern's path: each slot test fails for a class without the slot (CLIPS skips
 * such nodes), and a last node tests the class (object-match.ts).
 */
function objectSteps(info: ObjectPatternInfo, pending: PendingStep[]): void {
  // Tests on is-a go with the class test, as CLIPS folds them into the class bitmap.
  let classTest: NodeTest = objectClassTest(info);
  const classKeys: string[] = [];
  for (let i = pending.length - 1; i >= 0; i--) {
    const p = pending[i] as PendingStep;
    if (p.slot !== 0) continue;
    pending.splice(i, 1);
    const t = p.test ?? selectorTest(p.selector);
    if (t) classTest = both(classTest, t) as NodeTest;
    classKeys.unshift(...p.keys, p.selector ? `=${p.selector.getter}` : "");
  }
  for (let i = 0; i < pending.length; i++) {
    const p = pending[i] as PendingStep;
    if (p.slot <= 1) continue;
    const sel = p.selector;
    pending[i] = pendingStep(
      p.kind,
      p,
      p.keys,
      p.test ? whenSlotExists(p.slot, p.test) : null,
      sel ? { ...sel, pre: whenSlotExists(p.slot, sel.pre ?? (() => true)) } : null,
    );
  }
  // The classes defined so far are part of the test (CLIPS's class bitmap; object-match.ts).
  const key = `is-a(${info.classes?.join(" ") ?? "*"};${info.slots.join(",")};${classKeys.join(",")};${lastClassSerial()})`;
  if (pending.length === 0) {
    // Without a slot test the pattern starts at the one node CLIPS shares between all such
    // patterns (its class-bitmap node), whatever their classes.
    pending.push(
      pendingStep(
        "sf",
        { slot: OBJECT_BITMAP_SLOT, field: 0, leave: 0, multislot: false, group: -1 },
        ["bitmap"],
        null,
        null,
      ),
    );
  }
  pending.push(
    pendingStep(
      "sf",
      { slot: CLASS_TEST_SLOT, field: 0, leave: 0, multislot: false, group: -1 },
      [key],
      classTest,
      null,
    ),
  );
}

/** A constant selector as a plain test (the field equals the constant). */
function selectorTest(sel: PendingStep["selector"]): NodeTest | null {
  if (!sel) return null;
  const { pre, read, value } = sel;
  return (f, m) => (pre === null || pre(f, m)) && read(f, m) === value;
}

/** The final path: identities with the end-of-slot flag and, on the last node, the join hash. */
function finishSteps(pending: PendingStep[], rightHash: string, ordered: boolean): PatternStep[] {
  if (pending.length === 0) {
    // Nothing to test: the pattern enters at the relation's bare node (factbld.c keeps it). For
    // an ordered fact CLIPS never finds such a node shareable (its field number does not compare
    // equal), so each pattern gets its own, in front of its siblings; the untested patterns of a
    // deftemplate share one (checked on CLIPS 6.30: corpus/template-bare-patterns).
    return [
      {
        kind: "sf",
        slot: -1,
        field: 0,
        endSlot: false,
        leave: 0,
        multislot: false,
        key: `rel${ordered ? ++bareNodes : ""}|h:${rightHash}`,
        test: null,
        selector: null,
        bare: `h:${rightHash}`,
      },
    ];
  }
  return pending.map((p, i) => {
    const next = pending[i + 1];
    const endSlot = p.group >= 0 && next?.group !== p.group;
    const h = `|h:${i === pending.length - 1 ? rightHash : ""}`;
    const where = `${p.kind}:${p.slot}:${p.field}:${endSlot ? 1 : 0}`;
    const place = {
      kind: p.kind,
      slot: p.slot,
      field: p.field,
      endSlot,
      leave: p.leave,
      multislot: p.multislot,
    };
    if (p.selector) {
      const s = p.selector;
      return {
        ...place,
        key: `${where}|sel:${s.getter}${s.preKey ? `+${s.preKey}` : ""}${h}`,
        test: null,
        selector: {
          pre: s.pre,
          read: s.read,
          value: s.value,
          valueKey: `${where}|val:${litKey(s.value)}${h}`,
        },
        bare: null,
      };
    }
    const test = p.keys.length === 1 ? p.keys[0] : `and(${p.keys.join(",")})`;
    const leave = p.kind === "mf" ? `:${p.leave}` : "";
    return {
      ...place,
      key: `${where}${leave}|${test}${h}`,
      test: p.test,
      selector: null,
      bare: null,
    };
  });
}

/**
 * Compiles a pattern. Tests that read only this pattern's fields go to the pattern network;
 * tests on variables bound by earlier patterns go to the join, equality tests as hash keys.
 */
export function compilePattern(
  ce: PatternCE,
  outer: Scope,
  opts: {
    host: () => EvalHost;
    rule: string;
    patternNo: number;
    construct: string;
    /** `(test …)` CEs evaluated as part of this pattern's join, as CLIPS attaches them. */
    tests?: Expr[];
    /** Variables bound outside the enclosing not/exists group. */
    external?: ReadonlySet<string>;
  },
): CompiledPattern {
  const ordered = !ce.template;
  const ctx: Context = {
    extraTests: opts.tests ?? [],
    outer,
    locals: new Map(),
    refs: new Map(),
    nextSlot: 0,
    host: opts.host,
    rule: opts.rule,
    patternNo: opts.patternNo,
    construct: opts.construct,
    ordered,
    slotNames: ce.template ? ce.template.slots.map((slot) => slot.name) : [],
    pos: [],
    reads: [],
    scratch: [],
    external: opts.external ?? new Set(),
    hashPairs: [],
    joinTests: [],
  };
  const pending: PendingStep[] = [];
  if (ordered) planMultislot(ce.fields, 0, ctx, 0, pending);
  else {
    const template = ce.template as NonNullable<PatternCE["template"]>;
    // Slots are planned and tested in the order written, as CLIPS's pattern nodes are.
    for (const [index, fcs] of ce.slots) {
      if (template.slots[index]?.multi) {
        planMultislot(fcs, index, ctx, index, pending);
        continue;
      }
      const fc = fcs[0];
      if (!fc) continue;
      const p: FieldPos = {
        slot: index,
        inMulti: false,
        index: 0,
        multi: false,
        sfBefore: 0,
        sfAfter: 0,
        mfBefore: 0,
        mfAfter: 0,
      };
      const plan = planField(fc, ctx, p);
      const base = { slot: index, field: 0, leave: 0, multislot: false, group: -1 };
      if (plan.constant) {
        pending.push(
          pendingStep("sf", base, [], null, {
            pre: null,
            preKey: "",
            read: ctx.reads[plan.slot] as FieldRead,
            getter: getterKey(p),
            value: plan.constant.value,
          }),
        );
      } else if (plan.keys.length) {
        pending.push(pendingStep("sf", base, plan.keys, fieldTest(plan, ctx), null));
      }
    }
  }
  if (ce.object) objectSteps(ce.object, pending);
  if (ce.addressVar) {
    if (outer.has(ce.addressVar) || ctx.locals.has(ce.addressVar)) {
      throw rulesLoadError(ce.pos, `fact-address variable ?${ce.addressVar} is already bound`, {
        construct: opts.construct,
      });
    }
    ctx.locals.set(ce.addressVar, -1);
  }
  // The hash is part of the stop node's identity (factbld.c compares it too).
  const rightHash = ctx.hashPairs.map((h) => getterKey(ctx.pos[h.slot] as FieldPos)).join(",");
  // Template and object patterns alike keep their slots' tests in the order written: CLIPS 6.30
  // tests (y ?y&:(numberp ?y)) before (x =(+ ?y 1)) when they are written so.
  const steps = finishSteps(pending, rightHash, ordered);
  const bindings = new Map<string, Binding>();
  for (const [name, idx] of ctx.locals) {
    if (idx < 0) bindings.set(name, { read: null, key: "fact" });
    else
      bindings.set(name, {
        read: ctx.reads[idx] as FieldRead,
        key: getterKey(ctx.pos[idx] as FieldPos),
      });
  }
  return { steps, join: buildJoin(ctx), bindings };
}
