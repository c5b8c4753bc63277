import { isKeelError, KeelError } from "../core/index.js";
import { type Activation, Agenda, type RuleInfo } from "./agenda.js";
import type { CE, DeffactsAst, RuleAst, Template } from "./ast.js";
import { expandOr } from "./disjuncts.js";
import { rulesLoadError, rulesRuntimeError } from "./errors.js";
import {
  type Compiled,
  compileExpr,
  type EvalHost,
  type Frame,
  isKnownFunction,
  type ResolvedFact,
  type SlotChange,
} from "./evaluate.js";
import type { Fact } from "./facts.js";
import type { RuleFunction } from "./functions.js";
import { parseDeffacts, parseDefrule, parseDeftemplate } from "./parse-constructs.js";
import { type ParseContext, parseExpr, parseFactSpec } from "./parse-expr.js";
import { activationFacts, agendaListing, factLine, factsListing } from "./printer.js";
import { readForms, type SList, type SNode } from "./reader.js";
import type { Token } from "./rete/memory.js";
import { type BuiltRule, Network } from "./rete/network.js";
import { tokenReader } from "./rete/pattern.js";
import {
  type Atom,
  decodeValue,
  type EncodedValue,
  encodeValue,
  FALSE,
  type FactRef,
  fromHost,
  isFactRef,
  isInteger,
  isMultifield,
  TRUE,
  toPlain,
  type Value,
} from "./values.js";
import { changedValues, templateValues, WorkingMemory } from "./working-memory.js";

/** A function the host registers for rules to call; it receives CLIPS values (see values.ts). */
export type HostFunction = (...args: Value[]) => unknown;

/** One rule firing, for explanations and `--json`. */
export interface Firing {
  readonly rule: string;
  /** Indices of the facts matched by the rule's positive patterns, in pattern order. */
  readonly facts: number[];
  /** The left-hand-side variables and their values (plain JSON). */
  readonly bindings: Record<string, unknown>;
  /** The host action list of a rule defined with defineRule, if any. */
  readonly actions?: readonly unknown[];
}

/** An activation on the agenda, as data. */
export interface AgendaEntry {
  readonly rule: string;
  readonly salience: number;
  readonly facts: (number | null)[];
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
  readonly constructs: { source: string; actions?: readonly unknown[] }[];
  readonly facts: { id: number; relation: string; values: EncodedValue[] }[];
  readonly nextFactId: number;
  readonly agenda: { rule: string; facts: (number | null)[]; timetag: number }[];
  readonly clock: number;
}

export interface RuleEngineOptions {
  /** Host functions callable from rules, by name. */
  functions?: Record<string, HostFunction>;
  /** Where `printout` goes (router `t`); by default it is collected in `output`. */
  onPrint?: (text: string) => void;
}

interface RuleEntry {
  readonly name: string;
  readonly info: RuleInfo;
  readonly built: BuiltRule[];
  readonly actions: Compiled[];
  readonly hostActions: readonly unknown[] | undefined;
  readonly acts: Map<Token, Activation>;
  readonly source: string;
}

/**
 * A CLIPS-compatible forward-chaining rule engine, matched incrementally (Rete).
 *
 * @example
 * const engine = new RuleEngine();
 * engine.load(`(defrule alert (severity ?s&:(>= ?s 4)) => (assert (alert ?s)))`);
 * engine.reset();
 * engine.assert("(severity 5)");
 * engine.run(); // [{ rule: "alert", facts: [1], bindings: { s: 5 } }]
 */
export class RuleEngine {
  /** Text printed with `printout t` when no onPrint was given. */
  output = "";
  private wm = new WorkingMemory();
  private agenda = new Agenda();
  private net!: Network;
  private templates = new Map<string, Template>();
  private deffacts = new Map<string, DeffactsAst>();
  private rules = new Map<string, RuleEntry>();
  private constructLog: { name: string; source: string; actions?: readonly unknown[] }[] = [];
  private readonly hostFns = new Map<string, RuleFunction>();
  private halted = false;
  /** Set by (exit); the batch runner stops reading forms. */
  exited = false;
  private restoring: Map<string, Activation[]> | null = null;
  private readonly onPrint: (text: string) => void;
  private readonly evalHost: EvalHost;
  private firingLog: Firing[] = [];

  constructor(options: RuleEngineOptions = {}) {
    this.onPrint = options.onPrint ?? ((text) => (this.output += text));
    for (const [name, fn] of Object.entries(options.functions ?? {}))
      this.registerFunction(name, fn);
    this.evalHost = this.makeHost();
    this.initialise();
  }

  // ── constructs ──────────────────────────────────────────────────────────────────────────

  /**
   * Loads a pack: deftemplate, deffacts and defrule constructs. Atomic: when any construct fails,
   * the engine is left exactly as it was and the error (RULES_PARSE, with line and column) is thrown.
   */
  load(source: string): void {
    const forms = readForms(source);
    for (const f of forms) {
      const head = f.type === "list" && f.items[0]?.type === "atom" ? f.items[0].text : "";
      if (!["deftemplate", "deffacts", "defrule"].includes(head)) {
        throw rulesLoadError(
          f.pos,
          `load accepts deftemplate, deffacts and defrule, not ${head ? `(${head} …)` : "this form"}`,
          {
            hint: "Run commands with runBatch() or call the engine's methods.",
          },
        );
      }
    }
    this.atomically(() => {
      for (const f of forms) this.defineConstruct(f as SList);
    });
  }

  /** Defines a rule from TypeScript; its `actions` come back in each firing. Atomic like load(). */
  defineRule(def: RuleDefinition): void {
    const salience = def.salience ?? 0;
    const source = `(defrule ${def.name} (declare (salience ${salience})) ${def.when} => ${def.then ?? ""})`;
    const forms = readForms(source);
    this.atomically(() => this.defineConstruct(forms[0] as SList, def.actions));
  }

  /** Registers a host function callable from rules as `(name args…)`. */
  registerFunction(name: string, fn: HostFunction): void {
    this.hostFns.set(name, (args) => {
      const out = fn(...args);
      return isValue(out) ? out : fromHost(out);
    });
  }

  /** Names of the rules defined, in definition order. */
  ruleNames(): string[] {
    return [...this.rules.keys()];
  }

  private atomically(work: () => void): void {
    const before = this.snapshot();
    const output = this.output;
    try {
      work();
    } catch (e) {
      this.restore(before);
      this.output = output;
      throw e;
    }
  }

  private parseContext(): ParseContext {
    return {
      template: (name) => this.templates.get(name),
      hasFunction: (name) => isKnownFunction(name) || this.hostFns.has(name),
    };
  }

  /** Defines one construct form (used by load and by the batch runner). */
  defineConstruct(form: SList, hostActions?: readonly unknown[]): void {
    const head = form.items[0]?.type === "atom" ? form.items[0].text : "";
    const ctx = this.parseContext();
    switch (head) {
      case "deftemplate": {
        const t = parseDeftemplate(form, ctx);
        if (this.templates.has(t.name)) {
          throw rulesLoadError(form.pos, `deftemplate ${t.name} is already defined`, {
            hint: "Template redefinition is not supported; clear the engine first.",
          });
        }
        this.templates.set(t.name, t);
        this.constructLog.push({ name: `deftemplate ${t.name}`, source: form.source });
        return;
      }
      case "deffacts": {
        const d = parseDeffacts(form, ctx);
        this.deffacts.set(d.name, d);
        this.constructLog.push({ name: `deffacts ${d.name}`, source: form.source });
        return;
      }
      case "defrule": {
        const ast = parseDefrule(form, ctx);
        this.addRule(ast, hostActions);
        this.constructLog = this.constructLog.filter((c) => c.name !== `defrule ${ast.name}`);
        this.constructLog.push({
          name: `defrule ${ast.name}`,
          source: form.source,
          ...(hostActions ? { actions: hostActions } : {}),
        });
        return;
      }
      default:
        throw rulesLoadError(form.pos, `unknown construct '${head}'`, {
          hint: "Use deftemplate, deffacts or defrule.",
        });
    }
  }

  private addRule(ast: RuleAst, hostActions: readonly unknown[] | undefined): void {
    if (this.rules.has(ast.name)) this.removeRule(ast.name);
    const disjuncts: CE[][] = expandOr(ast.ces);
    const built: BuiltRule[] = [];
    const acts = new Map<Token, Activation>();
    const entry: RuleEntry = {
      name: ast.name,
      info: { name: ast.name, salience: ast.salience, display: [] },
      built,
      actions: [],
      hostActions,
      acts,
      source: ast.source,
    };
    for (const ces of disjuncts) {
      const display: ("fact" | "star" | "none")[] = [];
      const info: RuleInfo = { name: ast.name, salience: ast.salience, display };
      const b = this.net.buildRule(
        ast.name,
        ces,
        (t) => this.activate(entry, info, t),
        (t) => this.deactivate(entry, t),
      );
      display.push(...b.display);
      built.push(b);
      const scope = b.scope;
      const construct = `defrule ${ast.name}`;
      const rhs = ast.actions.map((a) =>
        compileExpr(a, {
          resolve: (name) => {
            const loc = scope.get(name);
            if (!loc) return null;
            const read = tokenReader(loc);
            // bind may rebind a left-hand-side variable for the rest of the actions.
            return (f) => f.rhs?.get(name) ?? read(f);
          },
          rhs: true,
          construct,
        }),
      );
      checkRhsVariables(ast, scope);
      (entry.actions as Compiled[]).push(...(built.length === 1 ? rhs : []));
      rhsByBuilt.set(b, rhs);
    }
    this.rules.set(ast.name, entry);
  }

  private removeRule(name: string): void {
    const entry = this.rules.get(name);
    if (!entry) return;
    for (const a of this.agenda.list()) if (a.rule.name === name) this.agenda.remove(a);
    entry.acts.clear();
    for (const b of entry.built) this.net.detach(b);
    this.rules.delete(name);
  }

  // ── working memory ──────────────────────────────────────────────────────────────────────

  /**
   * Asserts a fact; returns its index, or null when an identical fact already exists (CLIPS
   * suppresses duplicates).
   */
  assert(fact: FactInput): number | null {
    const resolved = this.resolveFactInput(fact);
    const f = this.assertResolved(resolved);
    return f ? f.factId : null;
  }

  /** Retracts a fact by index; false when no such fact exists. */
  retract(id: number): boolean {
    const fact = this.wm.byId.get(id);
    if (!fact) return false;
    this.retractFact(fact);
    return true;
  }

  /** Changes slots of a template fact (CLIPS: retract, then assert with a new index); returns the new index. */
  modify(id: number, slots: Record<string, unknown>): number | null {
    return this.changeFact(id, slots, false);
  }

  /** Asserts a copy of a template fact with some slots changed; returns the new index. */
  duplicate(id: number, slots: Record<string, unknown>): number | null {
    return this.changeFact(id, slots, true);
  }

  private changeFact(id: number, slots: Record<string, unknown>, dup: boolean): number | null {
    const fact = this.wm.byId.get(id);
    if (!fact)
      throw new KeelError("NOT_FOUND", `No fact f-${id}.`, {
        hint: "List facts with engine.facts().",
      });
    const changes: SlotChange[] = Object.entries(slots).map(([name, v]) => ({
      name,
      values: Array.isArray(v) ? (v.map(fromHost) as Value[]) : [fromHost(v)],
    }));
    const r = this.evalHost.modify(fact, changes, dup);
    return isFactRef(r) ? r.factId : null;
  }

  /** The facts in index order, as data. */
  facts(): FactData[] {
    return this.wm.all().map(factData);
  }

  /** The text of `(facts)`. */
  factsText(): string {
    return factsListing(this.wm.all());
  }

  private resolveFactInput(input: FactInput): ResolvedFact {
    if (typeof input === "string") {
      const forms = readForms(input);
      const spec = parseFactSpec(forms[0] as SNode, this.parseContext());
      const fn = compileExpr(
        { k: "assert", facts: [spec], pos: spec.pos },
        { resolve: () => null, rhs: false },
      );
      const captured: ResolvedFact[] = [];
      const host: EvalHost = {
        ...this.evalHost,
        assertFact: (r) => {
          captured.push(r);
          return FALSE;
        },
      };
      fn({ tok: null, local: null, rhs: null, host });
      return captured[0] as ResolvedFact;
    }
    if ("template" in input) {
      const t = this.templates.get(input.template);
      if (!t) throw rulesRuntimeError(`no deftemplate named ${input.template}`);
      const slots = new Map<number, Value>();
      for (const [name, v] of Object.entries(input.slots ?? {})) {
        const i = t.slotIndex.get(name);
        if (i === undefined)
          throw rulesRuntimeError(`slot '${name}' is not in deftemplate '${t.name}'`);
        slots.set(i, fromHost(v));
      }
      return { kind: "template", template: t, slots };
    }
    if (this.templates.has(input.relation)) {
      throw rulesRuntimeError(`${input.relation} is a deftemplate`, {
        hint: "Pass { template, slots } instead.",
      });
    }
    return {
      kind: "ordered",
      relation: input.relation,
      fields: (input.fields ?? []).map((x) => fromHost(x) as Atom),
    };
  }

  private assertResolved(r: ResolvedFact): Fact | null {
    let fact: Fact | null;
    if (r.kind === "ordered") {
      if (this.templates.has(r.relation)) {
        throw rulesRuntimeError(`${r.relation} is a deftemplate; assert it with slots`);
      }
      fact = this.wm.create(r.relation, null, r.fields);
    } else {
      fact = this.wm.create(
        r.template.name,
        r.template,
        templateValues(r.template, r.slots, this.evalHost),
      );
    }
    if (fact) this.net.assertFact(fact);
    return fact;
  }

  private retractFact(fact: Fact): void {
    if (fact.retracted) return;
    this.wm.remove(fact);
    this.net.retractFact(fact);
  }

  // ── agenda and run ──────────────────────────────────────────────────────────────────────

  private activate(entry: RuleEntry, info: RuleInfo, t: Token): void {
    const a: Activation = {
      rule: info,
      token: t,
      salience: info.salience,
      timetag: this.agenda.nextTimetag(),
      prev: null,
      next: null,
      group: null,
    };
    setAct(entry, t, a);
    if (this.restoring) {
      const key = activationKey(info.name, t);
      const list = this.restoring.get(key) ?? [];
      list.push(a);
      this.restoring.set(key, list);
      return;
    }
    this.agenda.add(a);
  }

  private deactivate(entry: RuleEntry, t: Token): void {
    const a = getAct(entry, t);
    if (!a) return;
    delAct(entry, t);
    this.agenda.remove(a);
  }

  /** The agenda in firing order, as data. */
  agendaEntries(): AgendaEntry[] {
    return this.agenda.list().map((a) => ({
      rule: a.rule.name,
      salience: a.salience,
      facts: a.token.matches.map((m, i) =>
        a.rule.display[i] === "fact" && m ? m.fact.factId : null,
      ),
      bindings: this.bindingsOf(a),
    }));
  }

  /** The text of `(agenda)`. */
  agendaText(): string {
    return agendaListing(this.agenda.list());
  }

  /**
   * Fires activations until the agenda is empty, `limit` rules have fired, or a rule halts.
   * Returns the firings in order (rule, facts, bindings).
   */
  run(limit?: number): Firing[] {
    this.halted = false;
    const fired: Firing[] = [];
    while (!this.halted && (limit === undefined || limit < 0 || fired.length < limit)) {
      const a = this.agenda.peek();
      if (!a) break;
      fired.push(this.fire(a));
    }
    return fired;
  }

  /** Every firing since the engine was created or last cleared (the explanation log). */
  explain(): readonly Firing[] {
    return this.firingLog;
  }

  private entryFor(a: Activation): { entry: RuleEntry; built: BuiltRule } {
    const entry = this.rules.get(a.rule.name) as RuleEntry;
    const built =
      entry.built.find((b) => b.display === a.rule.display) ?? (entry.built[0] as BuiltRule);
    return { entry, built };
  }

  private bindingsOf(a: Activation): Record<string, unknown> {
    const { built } = this.entryFor(a);
    const out: Record<string, unknown> = {};
    const frame: Frame = { tok: a.token.matches, local: null, rhs: null, host: this.evalHost };
    for (const [name, loc] of built.scope) out[name] = toPlain(tokenReader(loc)(frame));
    return out;
  }

  private fire(a: Activation): Firing {
    const { entry, built } = this.entryFor(a);
    this.agenda.remove(a);
    delAct(entry, a.token);
    const facts: number[] = [];
    a.token.matches.forEach((m, i) => {
      if (a.rule.display[i] === "fact" && m) facts.push(m.fact.factId);
    });
    const firing: Firing = {
      rule: entry.name,
      facts,
      bindings: this.bindingsOf(a),
      ...(entry.hostActions ? { actions: entry.hostActions } : {}),
    };
    this.firingLog.push(firing);
    const frame: Frame = { tok: a.token.matches, local: null, rhs: null, host: this.evalHost };
    const rhs = rhsByBuilt.get(built) ?? [];
    try {
      for (const action of rhs) {
        action(frame);
        if (this.exited) break;
      }
    } catch (e) {
      if (isKeelError(e) && e.code === "RULES_RUNTIME" && e.details.rule === undefined) {
        throw rulesRuntimeError(e.message.replace(/\.$/, ""), {
          rule: entry.name,
          clips: e.details.clips as string | undefined,
        });
      }
      throw e;
    }
    return firing;
  }

  // ── reset, clear, snapshot ──────────────────────────────────────────────────────────────

  private initialise(): void {
    this.wm = new WorkingMemory();
    this.agenda = new Agenda();
    this.net = new Network(
      () => this.evalHost,
      (relation) => this.wm.ofRelation(relation),
    );
    this.templates = new Map();
    this.deffacts = new Map();
    this.rules = new Map();
    this.constructLog = [];
    this.firingLog = [];
    this.assertResolved({ kind: "ordered", relation: "initial-fact", fields: [] });
  }

  /** Removes every construct and fact (CLIPS `clear`); `(initial-fact)` is f-0 again. */
  clear(): void {
    this.initialise();
  }

  /** Retracts every fact, then asserts `(initial-fact)` as f-0 and the deffacts (CLIPS `reset`). */
  reset(): void {
    for (const f of this.wm.all()) this.retractFact(f);
    this.agenda.clear();
    for (const entry of this.rules.values()) entry.acts.clear();
    this.net.resetRoot();
    this.wm.nextId = 0;
    this.assertResolved({ kind: "ordered", relation: "initial-fact", fields: [] });
    for (const d of this.deffacts.values()) {
      for (const spec of d.facts) {
        const fn = compileExpr(
          { k: "assert", facts: [spec], pos: spec.pos },
          { resolve: () => null, rhs: false },
        );
        fn({ tok: null, local: null, rhs: null, host: this.evalHost });
      }
    }
  }

  /** The whole state as plain JSON: constructs, facts, agenda (with refraction), counters. */
  snapshot(): EngineSnapshot {
    return {
      format: "keel.rules/1",
      constructs: this.constructLog.map((c) => ({
        source: c.source,
        ...(c.actions ? { actions: c.actions } : {}),
      })),
      facts: this.wm
        .all()
        .map((f) => ({ id: f.factId, relation: f.relation, values: f.values.map(encodeValue) })),
      nextFactId: this.wm.nextId,
      agenda: this.agenda.list().map((a) => ({
        rule: a.rule.name,
        facts: a.token.matches.map((m) => (m ? m.fact.factId : null)),
        timetag: a.timetag,
      })),
      clock: this.agenda.timetagClock,
    };
  }

  /** Replaces the whole state with a snapshot (host functions stay as registered). */
  restore(s: EngineSnapshot): void {
    if (s.format !== "keel.rules/1") {
      throw new KeelError(
        "INVALID_ARGUMENT",
        `Unknown rule-engine snapshot format ${String(s.format)}.`,
        {
          hint: "Pass a value returned by snapshot().",
        },
      );
    }
    this.initialise();
    for (const f of this.wm.all()) this.retractFact(f);
    this.agenda.clear();
    this.restoring = new Map();
    try {
      for (const c of s.constructs) {
        for (const form of readForms(c.source)) this.defineConstruct(form as SList, c.actions);
      }
      const refs = new Map<number, FactRef>();
      const factRef = (id: number): FactRef =>
        refs.get(id) ?? this.wm.byId.get(id) ?? { factId: id, retracted: true };
      for (const f of s.facts) {
        const template = this.templates.get(f.relation) ?? null;
        const values = f.values.map((v) => decodeValue(v, factRef));
        const fact = this.wm.create(f.relation, template, values, f.id);
        if (fact) {
          refs.set(fact.factId, fact);
          this.net.assertFact(fact);
        }
      }
      this.wm.nextId = s.nextFactId;
      const pending = this.restoring;
      for (const e of s.agenda) {
        const key = `${e.rule}|${e.facts.map((x) => (x === null ? "*" : x)).join(",")}`;
        const a = pending.get(key)?.shift();
        if (!a) continue;
        a.timetag = e.timetag;
        this.agenda.add(a);
      }
      // Activations not listed had already fired (refraction): drop them.
      for (const list of pending.values()) {
        for (const a of list) delActOf(this.rules.get(a.rule.name), a.token);
      }
      this.agenda.timetagClock = s.clock;
    } finally {
      this.restoring = null;
    }
  }

  // ── evaluation host ─────────────────────────────────────────────────────────────────────

  /** Evaluates a top-level command form (batch runner). */
  evalTopLevel(form: SNode, rhs: Map<string, Value>): Value {
    const expr = parseExpr(form, this.parseContext());
    const fn = compileExpr(expr, { resolve: () => null, rhs: true });
    return fn({ tok: null, local: null, rhs, host: this.evalHost });
  }

  private makeHost(): EvalHost {
    return {
      hostFunction: (name) => this.hostFns.get(name),
      assertFact: (r) => this.assertResolved(r) ?? FALSE,
      retract: (target) => {
        if (target === "*") {
          for (const f of this.wm.all()) this.retractFact(f);
          return;
        }
        if (isInteger(target) && !this.wm.byId.has(target)) {
          // CLIPS reports a missing index and carries on.
          this.onPrint(`[PRNTUTIL1] Unable to find fact f-${target}.\n`);
          return;
        }
        const fact = this.factOf(target, "retract");
        if (fact) this.retractFact(fact);
      },
      modify: (target, changes, dup) => {
        // CLIPS duplicates from a fact address even after the fact was retracted (its values remain).
        const fact =
          dup && isFactRef(target) && target.retracted && "values" in target
            ? (target as Fact)
            : this.factOf(target, dup ? "duplicate" : "modify");
        if (!fact) return FALSE;
        const values = changedValues(fact, changes);
        if (!dup) this.retractFact(fact);
        const created = this.wm.create(fact.relation, fact.template, values);
        if (!created) return FALSE;
        this.net.assertFact(created);
        return created;
      },
      print: (router, text) => {
        if (router === "t" || router === "stdout") this.onPrint(text);
      },
      halt: () => {
        this.halted = true;
      },
      command: (name, args) => this.command(name, args),
    };
  }

  private factOf(target: Value, fn: string): Fact | null {
    if (isFactRef(target)) {
      const f = this.wm.byId.get(target.factId);
      if (!f || f !== target) {
        throw rulesRuntimeError(
          `${fn} was given fact f-${target.factId}, which has been retracted`,
        );
      }
      return f;
    }
    if (isInteger(target)) {
      const f = this.wm.byId.get(target);
      if (!f) {
        throw rulesRuntimeError(`${fn} found no fact f-${target}`, {
          clips: `[PRNTUTIL1] Unable to find fact f-${target}.`,
        });
      }
      return f;
    }
    throw rulesRuntimeError(`${fn} expects a fact address or a fact index`);
  }

  private command(name: string, args: Value[]): Value | null {
    const n = (i: number): number | undefined =>
      isInteger(args[i] as Value) ? (args[i] as number) : undefined;
    switch (name) {
      case "reset":
        this.reset();
        return FALSE;
      case "clear":
        this.clear();
        return FALSE;
      case "run":
        // CLIPS 6.30 reports a zero limit instead of firing.
        if (n(0) === 0) this.onPrint("rule firing limit reached\n");
        else this.run(n(0));
        return FALSE;
      case "facts":
        this.onPrint(factsListing(this.wm.all(), n(0) ?? -1, n(1) ?? -1, n(2) ?? -1));
        return FALSE;
      case "agenda":
        this.onPrint(agendaListing(this.agenda.list()));
        return FALSE;
      case "exit":
        this.exited = true;
        this.halted = true;
        return FALSE;
      default:
        return null;
    }
  }
}

// A token's activation lives on the token itself (no map traffic per activation); a second rule
// with the very same join path falls back to the rule's own map.
function setAct(entry: RuleEntry, t: Token, a: Activation): void {
  if (t.actOwner === null) {
    t.actOwner = entry;
    t.act = a;
  } else entry.acts.set(t, a);
}

function getAct(entry: RuleEntry, t: Token): Activation | undefined {
  return t.actOwner === entry ? ((t.act as Activation | null) ?? undefined) : entry.acts.get(t);
}

function delAct(entry: RuleEntry, t: Token): void {
  if (t.actOwner === entry) {
    t.act = null;
    t.actOwner = null;
  } else entry.acts.delete(t);
}

function delActOf(entry: RuleEntry | undefined, t: Token): void {
  if (entry) delAct(entry, t);
}

/** RHS closures per compiled disjunct (kept outside the entry so `or` rules share a name). */
const rhsByBuilt = new WeakMap<BuiltRule, Compiled[]>();

function activationKey(rule: string, t: Token): string {
  return `${rule}|${t.matches.map((m) => (m ? m.fact.factId : "*")).join(",")}`;
}

function isValue(x: unknown): x is Value {
  return (
    typeof x === "string" ||
    (typeof x === "number" && Number.isInteger(x)) ||
    (typeof x === "object" && x !== null && !Array.isArray(x) && ("value" in x || "factId" in x)) ||
    (Array.isArray(x) && x.every(isValue))
  );
}

function checkRhsVariables(ast: RuleAst, scope: Map<string, unknown>): void {
  const bound = new Set<string>(scope.keys());
  const visit = (e: import("./ast.js").Expr): void => {
    switch (e.k) {
      case "var":
        if (!bound.has(e.name)) {
          throw rulesLoadError(e.pos, `variable ?${e.name} is not bound`, {
            construct: `defrule ${ast.name}`,
            clips: `[PRCCODE3] Undefined variable ${e.name} referenced in RHS of defrule.`,
            hint: "Bind it in a pattern on the left-hand side (or with bind before using it).",
          });
        }
        return;
      case "bind":
        e.value.forEach(visit);
        bound.add(e.name);
        return;
      case "call":
        e.args.forEach(visit);
        return;
      case "if":
        visit(e.cond);
        e.thenDo.forEach(visit);
        e.elseDo.forEach(visit);
        return;
      case "while":
        visit(e.cond);
        e.body.forEach(visit);
        return;
      case "assert":
        for (const f of e.facts) {
          if (f.kind === "ordered") f.fields.forEach(visit);
          else for (const s of f.slots) s.values.forEach(visit);
        }
        return;
      case "modify":
      case "duplicate":
        visit(e.target);
        for (const s of e.slots) s.values.forEach(visit);
        return;
      default:
        return;
    }
  };
  ast.actions.forEach(visit);
}

function factData(f: Fact): FactData {
  if (f.template) {
    const slots: Record<string, unknown> = {};
    f.template.slots.forEach((s, i) => {
      slots[s.name] = toPlain(f.values[i] as Value);
    });
    return { id: f.factId, relation: f.relation, slots, text: f.toString() };
  }
  return { id: f.factId, relation: f.relation, fields: f.values.map(toPlain), text: f.toString() };
}

export { activationFacts, factLine, isMultifield, TRUE };
