import type { Fact } from "../facts.js";
import { hashKey } from "../facts.js";
import type { Value } from "../values.js";
import type { AlphaNode, Mark, RightInput } from "./memory.js";

export type { Mark };

/** A pattern-network test: reads the fact (and the multifield bindings so far). */
export type NodeTest = (fact: Fact, marks: readonly Mark[]) => boolean;
/** Reads one field of a fact. */
export type FieldRead = (fact: Fact, marks: readonly Mark[]) => Value;

/** A hashed constant test (CLIPS 6.30's constant selector): one child per constant. */
export interface SelectorSpec {
  /** The slot-length test evaluated before the lookup, or null. */
  readonly pre: NodeTest | null;
  readonly read: FieldRead;
  readonly value: Value;
  /** Identity of the constant child. */
  readonly valueKey: string;
}

/** One node of a pattern's path through the tree, as the compiler describes it. */
export interface PatternStep {
  readonly kind: "sf" | "mf";
  /** Fact slot (template slot index; 0 for ordered facts; -1 for the bare relation node). */
  readonly slot: number;
  /** 1-based field number within a multifield slot; 0 otherwise. */
  readonly field: number;
  /** Last node of its multifield slot: the slot's length must come out exactly. */
  readonly endSlot: boolean;
  /** Single fields after this one in its slot (they may have no node of their own). */
  readonly leave: number;
  /** The slot holds a multifield value (ordered facts: always). */
  readonly multislot: boolean;
  /** Identity among siblings: equal keys share one node, as CLIPS shares identical tests. */
  readonly key: string;
  readonly test: NodeTest | null;
  readonly selector: SelectorSpec | null;
  /**
   * For a bare relation node (no test): what its memory holds, the same for every bare node of
   * the relation with this value, so they share one memory (see Network).
   */
  readonly bare: string | null;
}

let nodeIds = 0;

/**
 * Object patterns (object-match.ts): the slot of the class test that ends each pattern's path
 * (CLIPS's alpha node with its class bitmap), and of the node every pattern without a slot test
 * starts at.
 */
export const CLASS_TEST_SLOT = 0x3fffffff;
export const OBJECT_BITMAP_SLOT = 0x3ffffffe;

/** A node of a relation's pattern tree. */
export class PatternNode {
  readonly id = ++nodeIds;
  /** Children, newest first (CLIPS links a new node in front of its siblings). */
  readonly children: PatternNode[] = [];
  /** For a selector node: its constant children by value. */
  readonly byValue: Map<unknown, PatternNode> | null;
  /** The alpha memory of a stop node. */
  alpha: AlphaNode | null = null;
  /** The joins this stop node feeds, newest first (CLIPS visits the newest join first). */
  readonly succ: RightInput[] = [];
  /** Position among the stop nodes sharing its alpha memory, in walking order. */
  rank = 0;
  /** Joins at or below this node; a node nobody uses is unlinked. */
  users = 0;
  /** For a selector's constant child: its key in the selector's byValue. */
  valueKey: unknown = undefined;
  constructor(
    readonly kind: "sf" | "mf",
    readonly slot: number,
    readonly field: number,
    readonly endSlot: boolean,
    readonly leave: number,
    readonly multislot: boolean,
    readonly key: string,
    readonly test: NodeTest | null,
    readonly selector: SelectorSpec | null,
    readonly parent: PatternNode | null,
    readonly bare: string | null = null,
  ) {
    this.byValue = selector ? new Map() : null;
  }
}

/**
 * Links a new node of the object network among its siblings as CLIPS 6.30 does
 * (CreateNewObjectPatternNode): the class tests (a node's alpha memories) first, newest first;
 * a node testing a slot and field some sibling tests goes at the end of that group; any other
 * node goes in front of the slot tests.
 */
function placeObjectNode(list: PatternNode[], node: PatternNode): void {
  let classes = 0;
  while (classes < list.length && (list[classes] as PatternNode).slot === CLASS_TEST_SLOT)
    classes++;
  if (node.slot === CLASS_TEST_SLOT) {
    list.unshift(node);
    return;
  }
  const same = (n: PatternNode | undefined) =>
    n !== undefined && n.slot === node.slot && n.field === node.field;
  let at = list.findIndex(same);
  if (at < 0) {
    list.splice(classes, 0, node);
    return;
  }
  while (same(list[at])) at++;
  list.splice(at, 0, node);
}

/** Called for every alpha memory a fact reaches, in CLIPS's traversal order. */
export type Deliver = (
  alpha: AlphaNode,
  fact: Fact,
  marks: readonly Mark[],
  stop: PatternNode,
) => void;

/** The number of fields of the node's multislot; -1 when an instance's class lacks the slot. */
function slotLength(fact: Fact, node: PatternNode, ordered: boolean): number {
  const v = ordered ? fact.values : (fact.values[node.slot] as readonly Value[] | string);
  return Array.isArray(v) ? v.length : -1;
}

/**
 * One relation's fact pattern network, shaped as CLIPS 6.30 builds it (factbld.c) and walked as
 * it walks it (factmch.c), so that the alpha memories a fact enters, and hence the activations
 * one assertion creates, come in CLIPS's order:
 * - a pattern is a path of nodes, one per field that has a test of its own; a new node goes in
 *   front of its siblings, an identical one is shared;
 * - a fact walks the tree depth first; reaching a stop node it enters that node's alpha memory
 *   and the joins below it before going deeper;
 * - a multifield node binds its field to every possible length, longest first, and walks the
 *   subtree once per binding.
 */
export class PatternNet {
  readonly roots: PatternNode[] = [];
  private marks: Mark[] = [];

  constructor(
    readonly ordered: boolean,
    /** The object pattern network: nodes are placed as objrtbld.c places them. */
    readonly objects = false,
  ) {}

  /** Finds or creates the path for a pattern's steps; returns the stop node. */
  place(steps: readonly PatternStep[], created: PatternNode[]): PatternNode {
    let list = this.roots;
    let parent: PatternNode | null = null;
    for (const s of steps) {
      let node = list.find((n) => n.key === s.key);
      if (!node) {
        node = new PatternNode(
          s.kind,
          s.slot,
          s.field,
          s.endSlot,
          s.leave,
          s.multislot,
          s.key,
          s.test,
          s.selector,
          parent,
          s.bare,
        );
        if (this.objects) placeObjectNode(list, node);
        else list.unshift(node);
        created.push(node);
      }
      if (s.selector) {
        const sel: PatternNode = node;
        const vk = hashKey(s.selector.value);
        let child = sel.byValue?.get(vk);
        if (!child) {
          child = new PatternNode(
            s.kind,
            s.slot,
            s.field,
            s.endSlot,
            s.leave,
            s.multislot,
            s.selector.valueKey,
            null,
            null,
            sel,
          );
          // Reached through byValue only (a selector's children list stays empty: one array
          // slot per constant, filled in front, made defining N constants O(N²)).
          child.valueKey = vk;
          sel.byValue?.set(vk, child);
          created.push(child);
        }
        node = child;
      }
      parent = node;
      list = node.children;
    }
    return parent as PatternNode;
  }

  /** Counts a join at `stop` on every node of its path. */
  use(stop: PatternNode, delta: number): void {
    for (let n: PatternNode | null = stop; n; n = n.parent) {
      n.users += delta;
      if (n.users > 0) continue;
      // Nobody uses this node any more: unlink it, as CLIPS detaches an unshared pattern.
      const up: PatternNode | null = n.parent;
      if (n.valueKey !== undefined) {
        up?.byValue?.delete(n.valueKey);
        continue;
      }
      const list = up ? up.children : this.roots;
      const at = list.indexOf(n);
      if (at >= 0) list.splice(at, 1);
    }
  }

  /** Unlinks the nodes no join uses (placed by a rule that failed before it was committed). */
  prune(): void {
    const sweep = (list: PatternNode[]) => {
      for (let i = list.length - 1; i >= 0; i--) {
        const n = list[i] as PatternNode;
        if (n.users > 0) below(n);
        else list.splice(i, 1);
      }
    };
    const below = (n: PatternNode) => {
      sweep(n.children);
      if (!n.byValue) return;
      for (const [key, child] of n.byValue) {
        if (child.users > 0) below(child);
        else n.byValue.delete(key);
      }
    };
    sweep(this.roots);
  }

  /** Walks a fact through the tree; `deliver` is called at each stop node reached. */
  match(fact: Fact, deliver: Deliver): void {
    const roots = this.roots;
    if (roots.length === 0) return;
    this.marks = [];
    this.visit(roots, fact, 0, (roots[0] as PatternNode).slot, deliver);
  }

  private visit(
    list: readonly PatternNode[],
    fact: Fact,
    offset: number,
    offsetSlot: number,
    deliver: Deliver,
  ): void {
    const marks = this.marks;
    for (let i = 0; i < list.length; i++) {
      const node = list[i] as PatternNode;
      if (node.kind === "sf") {
        if (node.endSlot && node.multislot && marks.length > 0) {
          // Fields after the last multifield must use the slot up exactly (factmch.c).
          const first = marks[0] as Mark;
          if (first.slot === node.slot) {
            const at = node.field + (node.slot === offsetSlot ? offset : 0);
            if (node.leave + at !== slotLength(fact, node, this.ordered)) continue;
          }
        }
        let target: PatternNode | undefined = node;
        const sel = node.selector;
        if (sel) {
          if (sel.pre && !sel.pre(fact, marks)) continue;
          target = node.byValue?.get(hashKey(sel.read(fact, marks)));
          if (!target) continue;
        } else if (node.test && !node.test(fact, marks)) continue;
        if (target.alpha) deliver(target.alpha, fact, marks, target);
        if (target.children.length) this.visit(target.children, fact, offset, offsetSlot, deliver);
      } else {
        this.multifield(node, fact, node.slot === offsetSlot ? offset : 0, deliver);
      }
    }
  }

  private multifield(node: PatternNode, fact: Fact, offset: number, deliver: Deliver): void {
    const marks = this.marks;
    const length = slotLength(fact, node, this.ordered);
    if (length < 0) return;
    const start = node.field - 1 + offset;
    const mark: Mark = { slot: node.slot, field: node.field, start, len: 0 };
    marks.push(mark);
    const kids = node.children;
    if (node.endSlot) {
      // The last multifield of a slot takes what the single fields after it leave.
      mark.len = Math.max(0, length - node.leave - start);
      if (!node.test || node.test(fact, marks)) {
        if (node.alpha) deliver(node.alpha, fact, marks, node);
        if (kids.length) this.visit(kids, fact, 0, (kids[0] as PatternNode).slot, deliver);
      }
    } else {
      // Longest first for facts (factmch.c), shortest first for instances (objrtmch.c).
      const most = length - (start + node.leave);
      const step = this.objects ? 1 : -1;
      for (let len = this.objects ? 0 : most; len >= 0 && len <= most; len += step) {
        mark.len = len;
        if (node.test && !node.test(fact, marks)) continue;
        if (kids.length)
          this.visit(kids, fact, offset + len - 1, (kids[0] as PatternNode).slot, deliver);
      }
    }
    marks.pop();
  }
}
