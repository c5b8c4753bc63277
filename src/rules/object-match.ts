/**
 * Object patterns on a rule's left-hand side: `(object (is-a C) (name ?n) (slot ?x))`. An
 * instance enters the Rete as an {@link ObjectFact}, a fact of the reserved relation `object`
 * laid out by the {@link ObjectTemplate} (is-a, name, then every slot name any class has), so
 * object patterns share the pattern tree, alpha memories and joins of template patterns.
 *
 * As in CLIPS 6.30 (objrtmch.c), a pattern tests only the slots the instance's class has, its
 * class test comes last on its path, and a changed slot re-matches only the patterns that name
 * that slot: the others keep their partial matches and activations.
 */
import type { ObjectPatternInfo, SlotDef } from "./ast.js";
import { Fact } from "./facts.js";
import { ABSENT, OBJECT_RELATION, type ObjectTemplate } from "./object-template.js";
import { type ClassDef, type Instance, isClassEntry, lastClassSerial } from "./objects.js";
import { valueHash } from "./rete/hash.js";
import { type Atom, isMultifield, type Value } from "./values.js";

/** An instance as the Rete sees it; its values follow the instance's slots as they change. */
export class ObjectFact extends Fact {
  private readonly vals: Value[];
  private readonly hs: number[];
  constructor(
    id: number,
    readonly instance: Instance,
    private readonly layout: ObjectTemplate,
  ) {
    super(id, OBJECT_RELATION, layout, [], [], 0);
    this.vals = this.values as Value[];
    this.hs = this.hashes as number[];
    this.refresh();
  }

  /** Reads the instance's slots again (after a change, before re-matching). */
  refresh(): void {
    const { instance, layout, vals, hs } = this;
    vals.length = layout.slots.length;
    vals.fill(ABSENT);
    vals[0] = instance.cls.name;
    vals[1] = instance.instanceName;
    for (const [name, v] of instance.slots) {
      const at = layout.slotIndex.get(name);
      if (at === undefined) continue;
      vals[at] = (layout.slots[at] as SlotDef).multi && !isMultifield(v) ? [v as Atom] : v;
    }
    hs.length = vals.length;
    for (let i = 0; i < vals.length; i++) hs[i] = valueHash(vals[i] as Value);
  }

  /** Whether the instance's class has the object template's slot `index`. */
  has(index: number): boolean {
    return index < this.vals.length && this.vals[index] !== ABSENT;
  }

  override label(): string {
    return `[${this.instance.instanceName.name}]`;
  }

  override address(): Value {
    return this.instance;
  }

  override toString(): string {
    return `[${this.instance.instanceName.name}]`;
  }
}

/** Whether the class's instances are matched by object patterns (`pattern-match reactive`). */
function reactive(cls: ClassDef): boolean {
  return cls.reactive;
}

/**
 * The last test of an object pattern's path: the instance's class existed when the pattern was
 * compiled, is reactive, is one of the pattern's classes or a subclass of one, and has every
 * slot the pattern names.
 */
export function objectClassTest(info: ObjectPatternInfo): (f: Fact) => boolean {
  const { classes, slots } = info;
  // CLIPS fixes a pattern's classes (its class bitmap) when the rule is defined.
  const upto = lastClassSerial();
  return (f) => {
    if (!(f instanceof ObjectFact)) return false;
    const cls = f.instance.cls;
    if (cls.serial > upto || !reactive(cls)) return false;
    if (classes !== null && !cls.cpl.some((c) => classes.some((e) => isClassEntry(c, e)))) {
      return false;
    }
    for (const s of slots) if (!f.has(s)) return false;
    return true;
  };
}

/** A test on slot `index` of an object pattern, false when the instance's class lacks the slot. */
export function whenSlotExists<T extends (f: Fact, m: never) => boolean>(
  index: number,
  test: T,
): T {
  return ((f: Fact, m: never) => (f as ObjectFact).has(index) && test(f, m)) as T;
}

/** The tags of instances' facts start here, above any fact index a program reaches. */
const FIRST_TAG = 0x40000000;

/** What the matcher needs of the engine's network (rete/network.ts). */
export interface ObjectNet {
  assertFact(fact: Fact): void;
  retractFact(fact: Fact): void;
  rematch(fact: Fact, changed: readonly number[]): void;
}

/**
 * What truth maintenance (logical.ts) is told about instances: one made by a logical rule is
 * supported as an asserted fact is, and what a change to the network leaves without support goes
 * (CLIPS 6.30: insmngr.c AddLogicalDependencies, objrtmch.c ForceLogicalRetractions).
 */
export interface InstanceSupport {
  made(fact: ObjectFact): void;
  gone(fact: ObjectFact): void;
  settle(): void;
}

/** A change to an instance whose matching is put off (object-pattern-match-delay). */
interface Pending {
  kind: "made" | "changed" | "gone";
  readonly inst: Instance;
  readonly slots: Set<string>;
}

/** Keeps each instance's {@link ObjectFact} in the Rete as the instance is made, changed, deleted. */
export class InstanceMatcher {
  private facts = new Map<Instance, ObjectFact>();
  private nextTag = FIRST_TAG;
  /** How many object-pattern-match-delay calls are running, and the changes they put off. */
  private delay = 0;
  private pending: Pending[] = [];

  constructor(
    private readonly net: () => ObjectNet,
    private readonly layout: ObjectTemplate,
    private readonly support: () => InstanceSupport | null = () => null,
  ) {}

  /**
   * Runs `run` with matching put off: the changes it makes are matched once it ends, in order,
   * one per instance (CLIPS's QueueObjectMatchAction: a change after a make or another change
   * joins it, a delete drops a make not matched yet).
   */
  delayed<T>(run: () => T): T {
    this.delay++;
    try {
      return run();
    } finally {
      if (--this.delay === 0) this.flushPending();
    }
  }

  private queue(kind: Pending["kind"], inst: Instance, slots: readonly string[]): void {
    const at = this.pending.findIndex((p) => p.inst === inst);
    const known = this.pending[at];
    if (known === undefined) {
      this.pending.push({ kind, inst, slots: new Set(slots) });
    } else if (kind === "changed") {
      for (const s of slots) known.slots.add(s);
    } else if (kind === "gone") {
      if (known.kind === "made") this.pending.splice(at, 1);
      else known.kind = "gone";
    }
  }

  private flushPending(): void {
    const list = this.pending;
    this.pending = [];
    for (const p of list) {
      if (p.kind === "made") this.made(p.inst);
      else if (p.kind === "changed") this.changed(p.inst, [...p.slots]);
      else this.gone(p.inst);
    }
  }

  made(inst: Instance): void {
    if (this.delay > 0) {
      this.queue("made", inst, []);
      return;
    }
    if (this.facts.has(inst)) return;
    if (inst.tag === 0) inst.tag = this.nextTag++;
    else this.nextTag = Math.max(this.nextTag, inst.tag + 1);
    const fact = new ObjectFact(inst.tag, inst, this.layout);
    this.facts.set(inst, fact);
    const support = this.support();
    support?.made(fact);
    this.net().assertFact(fact);
    support?.settle();
  }

  /** The fact of the live instance with tag `tag` (a snapshot names an instance by it). */
  byTag(tag: number): ObjectFact | undefined {
    for (const f of this.facts.values()) if (f.factId === tag) return f;
    return undefined;
  }

  /** The fact standing for a live instance in the network, if any. */
  factOf(inst: Instance): ObjectFact | undefined {
    return this.facts.get(inst);
  }

  changed(inst: Instance, slots: readonly string[]): void {
    if (this.delay > 0) {
      this.queue("changed", inst, slots);
      return;
    }
    const fact = this.facts.get(inst);
    if (!fact) return;
    fact.refresh();
    const changed: number[] = [];
    for (const s of slots) {
      const at = this.layout.slotIndex.get(s);
      if (at !== undefined) changed.push(at);
    }
    this.net().rematch(fact, changed);
    this.support()?.settle();
  }

  gone(inst: Instance): void {
    if (this.delay > 0) {
      this.queue("gone", inst, []);
      return;
    }
    const fact = this.facts.get(inst);
    if (!fact) return;
    this.facts.delete(inst);
    fact.retracted = true;
    const support = this.support();
    support?.gone(fact);
    this.net().retractFact(fact);
    support?.settle();
  }

  /** The instances' facts, oldest first (a rule defined later is filled from them). */
  all(): ObjectFact[] {
    return [...this.facts.values()].sort((a, b) => a.factId - b.factId);
  }

  /** Forgets every instance (clear; the network is new). */
  clear(): void {
    this.facts = new Map();
    this.pending = [];
    this.nextTag = FIRST_TAG;
  }
}
