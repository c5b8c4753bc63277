import { isKeelError, KeelError } from "../core/index.js";
import type { Activation, RuleInfo } from "./agenda.js";
import type { DeffactsAst, RuleAst, SlotDef, Template } from "./ast.js";
import { Breakpoints, type BreaksHost } from "./breaks.js";
import {
  type ClassHolders,
  classHeld,
  formNamesClass,
  objectPatterns,
  patternClasses,
} from "./class-holders.js";
import { clipsMessageText } from "./clips-messages.js";
import { checkActionsContext, checkCommandContext } from "./command-context.js";
import { syntaxError } from "./construct-check.js";
import { type Added, ConstructLog } from "./construct-log.js";
import { type ConstructKind, ConstructTexts, splitName } from "./construct-texts.js";
import { BreakSignal, ReturnSignal } from "./control.js";
import { withDefclassEcho } from "./defclass-echo.js";
import { DEPENDENCY_COMMANDS, type DependencyHost, dependencyCommand } from "./dependencies.js";
import { checkSnapshot, snapshotOf } from "./engine-snapshot.js";
import type {
  AgendaEntry,
  EngineSnapshot,
  FactData,
  FactInput,
  Firing,
  HostFunction,
  LogicalSnapshot,
  RuleDefinition,
  RuleEngineOptions,
} from "./engine-types.js";
import { echoExtras, echoMode, errorEcho } from "./error-echo.js";
import { rulesLoadError, rulesParseError, rulesRuntimeError } from "./errors.js";
import { createEvalHost } from "./eval-host.js";
import { readsOuterVariables } from "./eval-variables.js";
import {
  compileExpr,
  type EvalHost,
  isKnownFunction,
  type ObjectOps,
  type ResolvedFact,
  type SlotChange,
} from "./evaluate.js";
import { factData, isValue, resolveFactInput } from "./fact-data.js";
import type { Fact } from "./facts.js";
import { bindingsOf, entryFor, firedMatches, runActions } from "./firing.js";
import { FocusAgenda, MAIN } from "./focus-agenda.js";
import { arityProblem, type RuleFunction } from "./functions.js";
import { type GenericCommandHost, genericCommand } from "./generic-commands.js";
import { Generics } from "./generics.js";
import { InputBuffer } from "./input.js";
import { type IntrospectionHost, introspectionCommand } from "./introspect.js";
import { handlerCommand } from "./introspect-handlers.js";
import {
  DEFAULT_RULE_LIMITS,
  type RuleLimits,
  resolveRuleLimits,
  ruleLimitError,
} from "./limits.js";
import { TruthMaintenance } from "./logical.js";
import { logicalSnapshot, restoreLogical } from "./logical-snapshot.js";
import { type MatchesHost, matchesCommand, refreshCommand } from "./matches.js";
import { bareName, constructKey, keyModule, localKey, type ModuleScope } from "./module-scope.js";
import {
  checkImportedModule,
  checkImports,
  exportsOf,
  type ImportHost,
  importConflict,
  importedModules,
  importsOf,
  type ModuleExports,
  type ModuleGraph,
  type ModuleImport,
  multiImportConflict,
} from "./modules-imports.js";
import { moduleError, moduleParts } from "./modules-syntax.js";
import { fileFunction } from "./no-files.js";
import { InstanceMatcher, type InstanceSupport, ObjectFact } from "./object-match.js";
import { candidateClasses, objectSlotLookup } from "./object-pattern-slots.js";
import { OBJECT_RELATION } from "./object-template.js";
import { type ClassDef, ObjectSystem } from "./objects.js";
import { parseDeffacts, parseDefrule, parseDeftemplate, skipComment } from "./parse-constructs.js";
import { parseDefclass, parseDefinstances, parseHandler } from "./parse-cool.js";
import { type ParseContext, parseExpr } from "./parse-expr.js";
import {
  defmethodName,
  type GenericScope,
  NOT_OVERLOADABLE,
  parseDefgeneric,
  parseDefmethod,
} from "./parse-generic.js";
import {
  deffunctionName,
  parseDeffunction,
  parseDefmodule,
  readDefglobal,
} from "./parse-procedural.js";
import { ppConstruct } from "./pp-constructs.js";
import { tokenText } from "./pp-reader.js";
import { type PpfactHost, ppfact } from "./ppfact.js";
import { activationFacts, agendaLine, agendaListing, factLine, factsListing } from "./printer.js";
import { Procedures } from "./procedures.js";
import { queryRestrictionNames } from "./query-parse.js";
import { RandomNumbers } from "./random-numbers.js";
import { readForms, type SAtom, type SList, type SNode } from "./reader.js";
import { matchesOf, type Token } from "./rete/memory.js";
import { Network } from "./rete/network.js";
import { type ParsedRule, parsedRule, parseRuleDefinition } from "./rule-check.js";
import { type ActivationHooks, compileRule } from "./rule-compile.js";
import {
  activationKey,
  delAct,
  delActOf,
  type RuleEntry,
  setAct,
  snapshotEntryKey,
  takeAct,
} from "./rule-entry.js";
import { salienceWhenDefined } from "./salience.js";
import { type SortHost, sortCommand } from "./sort.js";
import { isStrategy, STRATEGIES } from "./strategy.js";
import { Switches } from "./switches.js";
import { violationText } from "./template-defaults.js";
import {
  TEMPLATE_FUNCTIONS,
  type TemplateFunctionHost,
  templateFunction,
} from "./template-functions.js";
import { methodNamesClass, type UndefclassHost, undefclass } from "./undefclass.js";
import {
  calledByConstructs,
  templateInUse,
  UNDEFINE_COMMANDS,
  type UndefineHost,
  undefine,
} from "./undefine.js";
import { type UndefinstancesHost, undefinstances } from "./undefinstances.js";
import {
  ClipsString,
  decodeValue,
  FALSE,
  type FactRef,
  formatValue,
  fromHost,
  isFactRef,
  isMultifield,
  isString,
  TRUE,
  type Value,
  VOID,
} from "./values.js";
import {
  activationTrace,
  deffunctionTrace,
  factTrace,
  fireTrace,
  globalTrace,
  RunStatistics,
  Watches,
  type WatchItem,
  type WatchListHost,
} from "./watch.js";
import {
  checkFactConstraints,
  defaultFor,
  slotViolation,
  templateValues,
  WorkingMemory,
} from "./working-memory.js";

export type {
  AgendaEntry,
  EngineSnapshot,
  FactData,
  FactInput,
  Firing,
  HostFunction,
  RuleDefinition,
  RuleEngineOptions,
} from "./engine-types.js";

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
/** What CLIPS's syntax error names for a construct called `MOD::` (no name after the module). */
const EMPTY_NAME_SYNTAX: Readonly<Record<string, string>> = {
  deftemplate: "construct name",
  deffacts: "construct name",
  defrule: "construct name",
  deffunction: "construct name",
  defgeneric: "construct name",
  defclass: "construct name",
  definstances: "construct name",
  defglobal: "defglobal",
  defmodule: "module specifier",
};

export class RuleEngine {
  /** Text printed with `printout t` when no onPrint was given. */
  output = "";
  private wm = new WorkingMemory();
  private agenda = new FocusAgenda();
  /** The current defmodule (constructs without a prefix go there; `(agenda)` lists it). */
  private module = MAIN;
  private modules = new Set<string>([MAIN]);
  private net!: Network;
  private templates = new Map<string, Template>();
  private deffacts = new Map<string, DeffactsAst>();
  private rules = new Map<string, RuleEntry>();
  /** The classes each rule's object patterns can match: the rule holds them (class-holders.ts). */
  private ruleClasses = new Map<string, ReadonlySet<ClassDef>>();
  private constructLog = new ConstructLog(() => this.module);
  /** The construct log's key of each deffunction, defglobal and deffacts (`kind name`), for undef. */
  private logKeys = new Map<string, string>();
  /** The constructs by kind and name, for the introspection commands (ppdefrule, …). */
  private readonly texts = new ConstructTexts();
  /** Whether the built-in initial-fact deffacts is defined (`undeffacts` may delete it). */
  private initialFacts = true;
  /** Whether the built-in initial-fact deftemplate is defined (`undeftemplate` may delete it). */
  private initialTemplate = true;
  /** Rule breakpoints (breaks.ts) and what their commands read. */
  private readonly breaks = new Breakpoints();
  private readonly breaksHost: BreaksHost = {
    moduleOf: (rule) => (this.rules.has(rule) ? keyModule(rule) : undefined),
    rules: () => [...this.rules.keys()],
    key: (typed) => this.ruleKey(typed),
    modules: () => [...this.modules],
    module: () => this.module,
    print: (text) => this.onPrint(text),
  };

  /** What `matches` and `refresh` read (matches.ts). */
  private readonly matchesHost: MatchesHost = {
    rule: (name) => this.rules.get(this.ruleKey(name)),
    rootNode: () => this.net.root,
    rootToken: () => this.net.root.token,
    activations: () => this.agenda.listModule(this.module),
    print: (text) => this.onPrint(text),
  };

  private readonly introspection: IntrospectionHost = {
    texts: this.texts,
    initialFacts: () => this.initialFacts,
    initialObject: () => this.objects.initialObject,
    initialTemplate: () => this.initialTemplate,
    module: () => this.module,
    modules: () => [...this.modules],
    print: (text) => this.onPrint(text),
    classes: (m) =>
      (m === undefined ? this.objects.classList() : this.objects.classesOf(m)).map((c) => c.name),
    globalValue: (name, module) => this.procs.global(`${module}::${name}`),
  };
  /** What `(sort …)` needs: what a name calls, and a call of it with two values. */
  private readonly sortHost: SortHost = {
    functionKind: (name) => {
      const accepts = this.procs.acceptsCount(this.functionKey(name), 2);
      if (accepts !== null) return { kind: "deffunction", takesTwo: accepts };
      if (this.generics.has(this.functionKey(name))) return { kind: "generic" };
      if (isKnownFunction(name) || this.hostFns.has(name)) {
        return { kind: "function", takesTwo: arityProblem(name, 2) === null };
      }
      return null;
    },
    call: (name, a, b) => {
      const pos = { line: 0, column: 0 };
      const call = compileExpr(
        {
          k: "call",
          fn: name,
          args: [
            { k: "const", v: a },
            { k: "const", v: b },
          ],
          pos,
        },
        { resolve: () => null, rhs: true },
      );
      return call({ tok: null, local: null, rhs: new Map(), host: this.evalHost });
    },
    print: (text) => this.onPrint(text),
  };
  /** The open atomic section of load() or defineRule(), if any (see atomically). */
  private section: Section | null = null;
  private readonly hostFns = new Map<string, RuleFunction>();
  private halted = false;
  /** True while run() fires rules. */
  private running = false;
  /** Set by (exit); the batch runner stops reading forms. */
  exited = false;
  private restoring: Map<string, Activation[]> | null = null;
  /** Set while check-syntax parses: it makes no implied deftemplates. */
  private checkingSyntax = false;
  private readonly onPrint: (text: string) => void;
  private readonly evalHost: EvalHost;
  private firingLog: Firing[] = [];
  private procs: Procedures;
  private readonly input: InputBuffer;
  /** `(watch …)`: kept by clear, as in CLIPS. */
  private readonly watches = new Watches();
  private readonly switches = new Switches();
  /** The top-level commands being run, outermost first (eval nests them). */
  private readonly topForms: SNode[] = [];
  /** `seed`/`random`: glibc rand's sequence, kept across `(clear)` as C's is. */
  private readonly randomNumbers = new RandomNumbers((text) => this.onPrint(text));
  private tms = new TruthMaintenance((rule) => this.ruleRank(rule));
  /** `(set-salience-evaluation …)`: a setting of the environment, kept by clear. */
  private salienceEvaluation: "when-defined" | "when-activated" | "every-cycle" = "when-defined";
  private readonly objects = new ObjectSystem(() => this.evalHost);
  /** The class slots object patterns are checked against when a rule is defined. */
  private readonly objectSlots = objectSlotLookup(
    () => this.objects.classList(),
    (v, classes) => this.objects.ofClasses(v, classes),
  );
  /** Instances in the Rete, for object patterns. */
  private readonly instanceFacts = new InstanceMatcher(
    () => this.net,
    this.objects.template,
    () => this.instanceSupport,
  );
  /** Truth maintenance of instances: a logical rule's make-instance is supported as an assert. */
  private readonly instanceSupport: InstanceSupport = {
    made: (f) => this.tms.asserted(f, false),
    gone: (f) => this.tms.retracted(f),
    settle: () => this.tms.flush(this.retractLost),
  };
  private readonly generics = new Generics(
    () => this.evalHost,
    (v) => this.objects.classOf(v),
    (name) => this.objects.classNamed(name),
    (item) => this.watches.has(item),
    (text) => this.onPrint(text),
  );
  /** What the generic-function commands reach. */
  private readonly genericHost: GenericCommandHost = {
    generics: this.generics,
    texts: this.texts,
    module: () => this.module,
    modules: () => [...this.modules],
    resolve: (typed) => {
      const key = this.scopedKey("defgeneric", typed, (k) => this.generics.has(k));
      return this.generics.has(key) ? key : undefined;
    },
    print: (text) => this.onPrint(text),
    forgetGeneric: (key) => {
      this.generics.forget(key);
      this.procs.forgetFunction(key);
      this.texts.forget("defgeneric", `${keyModule(key)}::${bareName(key)}`);
    },
    calledNow: (name) => this.calledNow(name),
    heldByCode: (key) =>
      calledByConstructs(this.texts, bareName(key)) ||
      this.calledByMethods(key, key) ||
      this.calledByHandlers(key),
  };
  /** What COOL, generic functions and the query functions reach (evaluate.ts ObjectOps). */
  private readonly objectOps: ObjectOps = {
    slotOf: (target, slot) => {
      if (!isFactRef(target)) return this.objects.slotOf(target, slot);
      const fact = this.wm.byId.get(target.factId);
      const index = fact?.template?.slotIndex.get(slot);
      if (!fact || index === undefined) {
        throw rulesRuntimeError(`fact f-${target.factId} has no slot ${slot}`);
      }
      return fact.values[index] as Value;
    },
    setSlotOf: (target, slot, value) => this.objects.setSlot(target, slot, value),
    makeInstance: (name, cls, slots) => this.objects.makeInstance(name, cls, slots),
    modifyInstance: (target, slots) => this.objects.modifyInstance(target, slots),
    messageModifyInstance: (target, slots) => this.objects.messageModifyInstance(target, slots),
    initializeInstance: (target, slots) => this.objects.initializeInstance(target, slots),
    duplicateInstance: (target, to, slots, byMessage) =>
      this.objects.duplicateInstance(target, to, slots, byMessage),
    candidates: (facts, values, fn) => {
      const among = queryRestrictionNames(fn, values, (n) =>
        facts ? this.deftemplateKnown(n) : this.objects.hasClass(n),
      );
      if (!facts) return this.objects.candidates(among);
      const out: Value[] = [];
      for (const t of among) {
        for (const f of this.wm.all()) if (f.relation === t) out.push(f);
      }
      return out;
    },
    exists: (v) => (isFactRef(v) ? !v.retracted : this.objects.find(v) !== null),
    call: (name, args) => this.generics.call(name, args) ?? this.objects.call(name, args),
  };
  private limits: RuleLimits = DEFAULT_RULE_LIMITS;
  /** When the current run or top-level command must end (ms since the epoch); none outside one. */
  private deadline = Number.POSITIVE_INFINITY;
  /** The rule whose actions are running, for the wall-time error. */
  private firingRule: string | undefined;

  constructor(options: RuleEngineOptions = {}) {
    // The host reads the current working memory, which reset and clear replace.
    const self = this;
    this.onPrint = options.onPrint ?? ((text) => (this.output += text));
    this.input = new InputBuffer(options.input ?? null);
    this.texts.imported = (kind, name, from) => importedModules(this.moduleGraph, kind, name, from);
    this.objects.scope = this.moduleScope;
    this.generics.scope = this.moduleScope;
    this.procs = this.newProcedures();
    this.limits = resolveRuleLimits(options.limits);
    for (const [name, fn] of Object.entries(options.functions ?? {}))
      this.registerFunction(name, fn);
    this.evalHost = createEvalHost({
      get wm() {
        return self.wm;
      },
      hostFunction: (name) => this.procs.callable(name) ?? this.hostFns.get(name),
      assertResolved: (r) => this.assertResolved(r),
      retractFact: (f) => this.retractFact(f),
      matching: () => this.net.matching > 0,
      delayObjectMatching: (run) => this.instanceFacts.delayed(run),
      enter: (f) => {
        // modify and duplicate create the fact themselves; it is traced and matched here, and
        // gets the firing rule's logical support as an assert's fact does.
        if (this.refusedUnsupported(f)) return false;
        if (this.watches.mayWatch("facts"))
          this.traceOf("facts", factTemplateName(f), () => factTrace(true, factLine(f)));
        this.tms.asserted(f, false);
        this.net.assertFact(f);
        this.tms.flush(this.retractLost);
        if (this.switches.enabled("dynamic-constraint-checking")) checkFactConstraints(f);
        return true;
      },
      print: (text) => this.onPrint(text),
      matchError: options.onMatchError,
      halt: () => {
        this.halted = true;
      },
      exit: () => {
        this.exited = true;
        this.halted = true;
      },
      reset: () => this.reset(),
      clear: () => this.clear(),
      run: (limit) => (this.running ? null : this.run(limit).length),
      factsOfModule: (module) => this.factsOfModule(module),
      agendaText: (module) => this.agendaText(module),
      engineCommand: (name, args) => this.engineCommand(name, args),
      global: (name) => this.procs.global(name),
      setGlobal: (name, value) => this.procs.setGlobal(name, value),
      resetGlobal: (name) => this.procs.resetGlobal(name),
      input: this.input,
      objects: this.objectOps,
      get limits() {
        return self.limits;
      },
      checkDeadline: () => this.checkDeadline(),
    });
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
      if (!CONSTRUCT_NAMES.has(head)) {
        throw rulesLoadError(
          f.pos,
          `load accepts ${[...CONSTRUCT_NAMES].join(", ")}, not ${head ? `(${head} …)` : "this form"}`,
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

  /**
   * Defines a rule from TypeScript; its `actions` come back in each firing. Atomic like load().
   * A rule parsed by {@link checkRules} is not parsed again (unless this engine has templates,
   * which the check did not see, or lacks a host function the rule calls).
   *
   * @example
   * engine.defineRule({ name: "escalate", salience: 10, when: "(severity ?s&:(>= ?s 4))" });
   */
  defineRule(def: RuleDefinition | ParsedRule): void {
    if (!("source" in def)) {
      const { ast, source } = parseRuleDefinition(def, this.parseContext());
      this.atomically(() => this.defineRuleAst(ast, source, def.actions));
      return;
    }
    const parsed = def as ParsedRule;
    const ast =
      this.templates.size === 0
        ? parsedRule(parsed, (fns) => [...fns].every((name) => this.hostFns.has(name)))
        : undefined;
    if (ast) {
      this.atomically(() => this.defineRuleAst(ast, parsed.source, parsed.actions));
      return;
    }
    const form = readForms(parsed.source)[0] as SList;
    this.atomically(() => this.defineConstruct(form, parsed.actions));
  }

  /** Registers a host function callable from rules as `(name args…)`. */
  registerFunction(name: string, fn: HostFunction): void {
    this.hostFns.set(name, (args) => {
      const out = fn(...args);
      return isValue(out) ? out : fromHost(out);
    });
  }

  /** Names of the deftemplates defined, in definition order. */
  templateNames(): string[] {
    return [...this.templates.keys()];
  }

  /** Names of the rules defined, in definition order. */
  ruleNames(): string[] {
    return [...this.rules.keys()];
  }

  /**
   * Runs `work` so that, when it throws, the engine is left exactly as it was. Nothing is copied
   * up front: each construct defined is journalled and undone on failure (removing a new rule
   * detaches its nodes and activations), so defining N rules stays linear in N. Replacing a
   * rule or deffacts cannot be undone that way: the first time a section is about to, it takes
   * a snapshot of the state as it was before the section, and a failure restores that instead.
   */
  private atomically(work: () => void): void {
    if (this.section) {
      work();
      return;
    }
    const section: Section = {
      added: [],
      implied: [],
      rules: new Set(),
      clock: this.agenda.timetagClock,
      output: this.output,
      before: null,
    };
    this.section = section;
    try {
      work();
    } catch (e) {
      this.section = null;
      this.rollBack(section);
      throw e;
    } finally {
      this.section = null;
    }
  }

  private rollBack(section: Section): void {
    if (section.before) {
      this.restore(section.before);
    } else {
      for (let i = section.added.length - 1; i >= 0; i--) {
        const added = section.added[i] as Added;
        if (added.kind === "rule") this.removeRule(added.name);
        else if (added.kind === "template") this.templates.delete(added.name);
        else this.deffacts.delete(added.name);
        this.constructLog.delete(added.key);
      }
      for (const key of section.implied) {
        this.texts.forget("deftemplate", key);
        const [module, name] = splitName(key, MAIN);
        this.implied.delete(constructKey(module, name));
      }
      this.agenda.timetagClock = section.clock;
    }
    this.output = section.output;
  }

  /**
   * Called before a construct replaces one the open section did not add: snapshots the state as
   * it was when the section began (what the section added is left out; the agenda entries of
   * its rules are then skipped by restore).
   */
  private beforeReplacing(): void {
    const section = this.section;
    if (!section || section.before) return;
    const keys = new Set(section.added.map((a) => a.key));
    section.before = {
      ...this.snapshotWith(this.constructLog.listWithout(keys)),
      clock: section.clock,
    };
  }

  /** Journals a construct the open section added. */
  private journal(added: Added): void {
    const section = this.section;
    if (!section) return;
    section.added.push(added);
    if (added.kind === "rule") section.rules.add(added.name);
  }

  /** What the parser asks the engine; built once (it reads the current templates). */
  private readonly parsing: ParseContext = {
    template: (name) =>
      name === OBJECT_RELATION ? this.objects.template : this.templates.get(this.templateKey(name)),
    hasClass: (name) => this.objects.hasClass(name),
    objectCandidates: (isa, slots) => candidateClasses(this.objects.classList(), isa, slots).length,
    classKey: (name) => {
      const cls = this.objects.classNamed(name);
      return cls && `${cls.module}::${cls.name}`;
    },
    ofClasses: (v, classes) => this.objects.ofClasses(v, classes),
    // A pattern on a relation the module sees an implied deftemplate (or any deftemplate) of makes none.
    impliedConflict: (name) =>
      !this.implied.has(constructKey(this.module, name)) &&
      this.visibleImplied(name, this.module) === undefined &&
      !this.texts.has("deftemplate", name, this.module) &&
      this.importConflict("deftemplate", name, this.module),
    impliedKey: (name) => this.impliedKey(name),
    hasDeftemplate: (name) => this.deftemplateKnown(name),
    hasFunction: (name) =>
      isKnownFunction(name) ||
      this.procs.hasFunction(this.functionKey(name)) ||
      this.hostFns.has(name),
    functionKey: (name) => this.functionKey(name),
    hasGlobal: (name) => this.procs.hasGlobal(name),
    overloaded: (name) => this.generics.overloads(name),
    deffunctionAccepts: (name, count) => this.procs.acceptsCount(name, count),
    deffunctionArityText: (name) => this.procs.arityText(name),
    sequenceExpansion: () => this.switches.enabled("sequence-operator-recognition"),
    evaluate: (exprs) =>
      exprs.map((e) =>
        compileExpr(e, { resolve: () => null, rhs: false })({
          tok: null,
          local: null,
          rhs: null,
          host: this.evalHost,
        }),
      ),
  };

  private parseContext(): ParseContext {
    return this.parsing;
  }

  /** The current module (CLIPS's get-current-module). */
  get currentModule(): string {
    return this.module;
  }

  /** Defines one construct form (used by load and by the batch runner). */
  defineConstruct(form: SList, hostActions?: readonly unknown[]): void {
    this.defineConstructKind(form, hostActions);
    // Only deffacts and defglobals are kept per module yet; a construct of another kind
    // replaces its namesake in another module, so its text goes too.
    const head = form.items[0];
    const name = form.items[1];
    if (head?.type === "atom" && name?.type === "atom" && !PER_MODULE.has(head.text)) {
      const at = name.text.indexOf("::");
      const bare = at > 0 ? name.text.slice(at + 2) : name.text;
      const kind = head.text as ConstructKind;
      const own = constructModule(form, this.module);
      const other = this.texts.moduleOf(kind, bare, own);
      if (other !== undefined && other !== own) this.texts.forget(kind, `${other}::${bare}`);
    }
    this.texts.record(form, this.module);
  }

  /**
   * CLIPS replaces a deftemplate no rule, deffacts, assert or fact uses (the old text goes);
   * one in use stays and the new one is [CSTRCPSR4].
   */
  private redefiningTemplate(name: string, form: SList): void {
    const module = constructModule(form, this.module);
    const id = constructKey(module, name);
    if (templateInUse(this.texts, name) || this.wm.ofRelation(id).length > 0) {
      const error = rulesLoadError(form.pos, `deftemplate ${name} is in use, not redefined`, {
        clips: `[CSTRCPSR4] Cannot redefine deftemplate ${name} while it is in use.`,
        hint: "Retract its facts and delete the rules and constructs using it first.",
      });
      // CLIPS checks once it has read the name: its echo stops there.
      Object.assign(error.details, { echoText: `(deftemplate ${module}::${name}` });
      throw error;
    }
    this.beforeReplacing();
    this.undefineHost.remove("deftemplate", name, module);
  }

  private defineConstructKind(form: SList, hostActions?: readonly unknown[]): void {
    const head = form.items[0]?.type === "atom" ? form.items[0].text : "";
    const ctx = this.parseContext();
    this.checkConstructModule(head, form);
    this.checkImportConflict(head, form);
    switch (head) {
      case "deftemplate": {
        // Modules are namespaces: FOO::d and BAR::d are two deftemplates (module-scope.ts).
        const module = constructModule(form, this.module);
        const node = form.items[1];
        if (node?.type === "atom" && node.kind === "symbol") {
          // CLIPS replaces (or refuses to) once it has read the name, before the slots: an
          // implied deftemplate of the name too.
          const name = splitName(node.text, module)[1];
          if (
            this.templates.has(constructKey(module, name)) ||
            this.texts.isImplied(name, module)
          ) {
            this.redefiningTemplate(name, form);
          }
        }
        const t = parseDeftemplate(form, ctx);
        const id = constructKey(module, t.name);
        this.templates.set(id, id === t.name ? t : { ...t, key: id });
        const key = this.constructLog.other({ source: form.source });
        this.logKeys.set(`deftemplate ${module}::${t.name}`, key);
        this.journal({ kind: "template", name: id, key });
        return;
      }
      case "deffacts": {
        const d = parseDeffacts(form, ctx);
        // Modules are namespaces: FOO::d and BAR::d are two deffacts.
        const id = `${constructModule(form, this.module)}::${d.name}`;
        // Replacing one moves it (below), which undoing could not put back: snapshot first.
        if (this.deffacts.has(id)) this.beforeReplacing();
        // CLIPS puts a redefined deffacts last: reset asserts its facts after the others.
        this.deffacts.delete(id);
        this.deffacts.set(id, d);
        const key = this.constructLog.other({ source: form.source });
        this.logKeys.set(`deffacts ${id}`, key);
        this.journal({ kind: "deffacts", name: id, key });
        return;
      }
      case "defrule": {
        const rule = parseDefrule(form, ctx);
        checkActionsContext(rule.actions);
        this.defineRuleAst(rule, form.source, hostActions);
        return;
      }
      case "deffunction": {
        const name = deffunctionName(form, ctx);
        // Modules are namespaces: FOO::f and BAR::f are two deffunctions.
        const key = constructKey(constructModule(form, this.module), name);
        this.checkDeffunctionName(form, name, key);
        const existed = this.procs.hasFunction(key);
        this.procs.declareFunction(key);
        try {
          this.procs.defineFunction(parseDeffunction(form, ctx), key);
        } catch (e) {
          if (!existed) this.procs.forgetFunction(key);
          throw e;
        }
        this.logKeys.set(`deffunction ${key}`, this.constructLog.other({ source: form.source }));
        return;
      }
      case "defmodule": {
        this.checkModuleRedefinition(form);
        const name = parseDefmodule(form, ctx, (module, spec, echo) =>
          checkImportedModule(spec, module.text, echo, this.importHost),
        );
        checkImports(form, this.importHost);
        this.checkMultiImportConflict(name, form);
        const exports = exportsOf(form);
        // CLIPS lets MAIN be defined again until once with imports or exports.
        if (name === MAIN && moduleParts(form).specs.length > 0) this.mainRedefinable = false;
        this.moduleExports.set(name, exports);
        this.moduleImports.set(name, importsOf(form));
        this.modules.add(name);
        this.setModule(name);
        this.constructLog.other({ source: form.source });
        return;
      }
      case "defclass":
        try {
          this.checkClassIdle(form);
          const ast = parseDefclass(form, ctx, (c) => this.objects.hasClass(c));
          const module = constructModule(form, this.module);
          // A class defined again loses its subclasses, as in CLIPS (classfun.c DeleteClassUAG);
          // another module's class of that name is another class and keeps its own.
          const own = this.texts.has("defclass", `${module}::${ast.name}`);
          const old = own ? this.objects.classNamed(ast.name, module) : undefined;
          const subclasses = [...(old?.subclasses ?? [])];
          this.objects.defineClass(ast, module);
          for (const sub of subclasses) this.removeClass(sub);
          this.logKeys.set(
            `defclass ${module}::${ast.name}`,
            this.constructLog.other({ source: form.source }),
          );
        } catch (e) {
          throw withDefclassEcho(e, form, this.module);
        }
        return;
      case "defmessage-handler": {
        // `MOD::CLASS` is the class of that name MOD sees (CLIPS's LookupDefclassByMdlOrScope).
        const from = constructModule(form, this.module);
        const h = parseHandler(
          form,
          ctx,
          (c) => this.objects.hasClass(c, from),
          (c) => {
            const cls = this.objects.classNamed(c, from);
            return cls !== undefined && this.objects.handlersRunning(cls);
          },
        );
        this.objects.defineHandler(h, ppConstruct(form, this.module) ?? undefined, from, {
          form,
          module: from,
        });
        // Keyed by class (undefclass drops a class's handlers from the log).
        const cls = this.objects.classNamed(h.cls, from);
        this.logKeys.set(
          `defmessage-handler ${cls?.module}::${h.cls} ${h.name} ${h.type}`,
          this.constructLog.other({ source: form.source }),
        );
        return;
      }
      case "definstances": {
        this.checkInstancesIdle(form);
        const ast = parseDefinstances(form, ctx, (c) => this.objects.classNamed(c) ?? null);
        const opts = { resolve: () => null, rhs: true, construct: `definstances ${ast.name}` };
        // Each class as the definstances' module sees it now (reset may run in another).
        const qualified = (typed: string): string => {
          const c = this.objects.classNamed(typed);
          return c ? `${c.module}::${c.name}` : typed;
        };
        const module = constructModule(form, this.module);
        this.objects.defineInstances(
          constructKey(module, ast.name),
          ast.instances.map((i) => ({
            name: i.name ? compileExpr(i.name, opts) : null,
            cls: qualified(i.cls),
            slots: i.slots.map((x) => ({
              name: x.name,
              values: x.values.map((v) => compileExpr(v, opts)),
            })),
          })),
        );
        this.logKeys.set(
          `definstances ${module}::${ast.name}`,
          this.constructLog.other({ source: form.source }),
        );
        return;
      }
      case "defgeneric":
      case "defmethod": {
        const module = constructModule(form, this.module);
        const scope = this.genericScope(module);
        const name =
          head === "defgeneric"
            ? parseDefgeneric(form, ctx, module, scope)
            : defmethodName(form, ctx, module, scope);
        // Modules are namespaces: FOO::f and BAR::f are two generic functions.
        const key = constructKey(module, name);
        const declared = !this.generics.has(key);
        this.generics.touch(key);
        if (declared) {
          // What a failing argument's message names ([PRCCODE6]).
          const dispatch = this.generics.declare(name, module);
          this.procs.defineCallable(
            key,
            Object.assign(dispatch, { procedure: `generic function ${name}` }),
          );
        }
        try {
          if (head === "defmethod") {
            this.generics.defineMethod(parseDefmethod(form, ctx, module, scope), form, key);
          }
        } catch (e) {
          // A generic function comes with its first method: a failed one leaves none.
          if (declared) {
            this.generics.forget(key);
            this.procs.forgetFunction(key);
          }
          throw e;
        }
        this.constructLog.other({ source: form.source });
        return;
      }
      case "defglobal": {
        const defined: string[] = [];
        readDefglobal(
          form,
          ctx,
          (m) => this.modules.has(m),
          (name, init, module, value) => {
            this.procs.defineGlobal(name, init, module);
            this.texts.recordGlobal(form, module, name, value);
            defined.push(`${module}::${name}`);
          },
          (name, module) => this.importConflict("defglobal", name, module),
        );
        const key = this.constructLog.other({ source: form.source });
        for (const id of defined) this.logKeys.set(`defglobal ${id}`, key);
        return;
      }
      default:
        throw rulesLoadError(form.pos, `unknown construct '${head}'`, {
          hint: "Use deftemplate, deffacts or defrule.",
        });
    }
  }

  /**
   * CLIPS's ValidGenericName: what a generic function of `module` may not be named, with its
   * message.
   */
  private genericScope(module: string): GenericScope {
    const keyOf = (name: string): string => constructKey(module, name);
    return {
      refuse: (name) =>
        CONSTRUCT_NAMES.has(name)
          ? "[GENRCPSR3] Defgenerics are not allowed to replace constructs."
          : this.procs.hasFunction(keyOf(name)) && !this.generics.has(keyOf(name))
            ? "[GENRCPSR5] Defgenerics are not allowed to replace deffunctions."
            : this.generics.running(keyOf(name))
              ? `[GENRCFUN1] Defgeneric ${name} cannot be modified while one of its methods is executing.`
              : NOT_OVERLOADABLE.has(name)
                ? `[GENRCPSR16] The system function ${name} cannot be overloaded.`
                : null,
      classNamed: (name) => this.objects.classNamed(name),
    };
  }

  /**
   * [CSTRCPSR3] for a defmodule whose own imports would give it two constructs of one name;
   * the module is not defined.
   */
  private checkMultiImportConflict(name: string, form: SList): void {
    const conflict = multiImportConflict(
      this.moduleGraph,
      this.modules,
      (kind, m) => this.texts.names(kind as ConstructKind, m),
      name,
      importsOf(form),
    );
    if (conflict === null) return;
    const { kind, name: item } = conflict;
    const head = form.items[1] as SNode;
    const message = `[CSTRCPSR3] Cannot define defmodule ${name} because of an import/export conflict caused by the ${kind} ${item}.`;
    throw moduleError(head, message, (ppConstruct(form, name) ?? "").trimEnd());
  }

  /** Whether defining `kind name` in `module` is CLIPS's import/export conflict. */
  private importConflict(kind: string, name: string, module: string): boolean {
    if (this.moduleImports.size === 0) return false;
    return importConflict(this.moduleGraph, this.modules, kind, name, module);
  }

  /**
   * [CSTRCPSR3]: a deftemplate, deffunction, generic function or class whose name some module
   * would then see twice (its own and an imported one, or two imported), checked as CLIPS once
   * it read the name.
   */
  private checkImportConflict(head: string, form: SList): void {
    const kind = head === "defmethod" ? "defgeneric" : head;
    if (!PORTABLE.has(kind)) return;
    const node = form.items[1];
    if (node?.type !== "atom" || node.kind !== "symbol") return;
    const at = node.text.indexOf("::");
    const module = at > 0 ? node.text.slice(0, at) : this.module;
    const name = at > 0 ? node.text.slice(at + 2) : node.text;
    if (!this.importConflict(kind, name, module)) return;
    const error = rulesLoadError(node.pos, `${kind} ${name} would be seen twice through imports`, {
      clips: `[CSTRCPSR3] Cannot define ${kind} ${name} because of an import/export conflict.`,
      hint: "Rename it, or change the modules' imports and exports.",
    });
    Object.assign(error.details, { echoText: `(${head} ${module}::${name}` });
    throw error;
  }

  /**
   * A construct naming a module that does not exist is CLIPS's [PRNTUTIL1]; one that exists
   * becomes the current module.
   */
  private checkConstructModule(head: string, form: SList): void {
    const node = form.items[1];
    if (node?.type !== "atom" || node.kind !== "symbol") return;
    if (node.text.endsWith("::") && head in EMPTY_NAME_SYNTAX) {
      // `MOD::` names a module and no construct: CLIPS's syntax error, echoed through it.
      const error = rulesLoadError(node.pos, `a name after ${node.text}`, {
        clips: syntaxError(EMPTY_NAME_SYNTAX[head] as string),
      });
      Object.assign(error.details, { echoText: `(${head} ${node.text}` });
      throw error;
    }
    if (head === "defmodule") return;
    let module: string | undefined;
    if (head === "defglobal") module = node.text;
    else if (node.text.indexOf("::") > 0) module = node.text.slice(0, node.text.indexOf("::"));
    if (module === undefined) return;
    if (this.modules.has(module)) {
      // Naming a module makes it the current one, even when the construct then fails (CLIPS).
      this.setModule(module);
      return;
    }
    const message = `[PRNTUTIL1] Unable to find defmodule ${module}.`;
    throw rulesLoadError(node.pos, `no module ${module}`, {
      // The printer does not replay defglobals: their echo, the module word read, is given here.
      clips: head === "defglobal" ? `${message}\n\nERROR:\n(defglobal ${module}` : message,
      echoThrough: head !== "defglobal",
      hint: "Define the module with defmodule first.",
    });
  }

  /** [CSTRCPSR4]: a definstances cannot be redefined while reset makes its instances. */
  private checkInstancesIdle(form: SList): void {
    const node = form.items[1];
    if (node?.type !== "atom" || node.kind !== "symbol") return;
    const [module, name] = splitName(node.text, this.module);
    if (!this.objects.instancesRunning(constructKey(module, name))) return;
    const error = rulesLoadError(node.pos, `definstances ${name} is in use, not redefined`, {
      clips: `[CSTRCPSR4] Cannot redefine definstances ${name} while it is in use.`,
      hint: "Redefine it after the reset.",
    });
    // CLIPS checks once it has read the name: its echo stops there.
    Object.assign(error.details, { echoText: `(definstances ${module}::${name}` });
    throw error;
  }

  /**
   * CLIPS's checks of a deffunction's name: not a construct's ([DFFNXPSR1]), a built-in
   * function's ([DFFNXPSR2]), a generic function's ([DFFNXPSR3]) nor one running now
   * ([DFNXPSR4]); echoed through the `(` that follows the name.
   */
  private checkDeffunctionName(form: SList, name: string, key: string): void {
    const clips = CONSTRUCT_NAMES.has(name)
      ? "[DFFNXPSR1] Deffunctions are not allowed to replace constructs."
      : isKnownFunction(name)
        ? "[DFFNXPSR2] Deffunctions are not allowed to replace external functions."
        : this.generics.has(this.scopedKey("defgeneric", name, (k) => this.generics.has(k)))
          ? "[DFFNXPSR3] Deffunctions are not allowed to replace generic functions."
          : this.procs.running(key)
            ? `[DFNXPSR4] Deffunction ${name} may not be redefined while it is executing.`
            : null;
    if (clips === null) return;
    // CLIPS had read the token after the name (and comment) and put it on a line of its own.
    const at = skipComment(form, 2);
    const next = form.items[at];
    const comment = at > 2 ? ` ${tokenText(form.items[2] as SAtom)}` : "";
    const found = next === undefined ? ")" : next.type === "list" ? "(" : tokenText(next);
    const error = rulesParseError(form.pos, `a deffunction name free to use`, `'${name}'`, {
      construct: `deffunction ${name}`,
      clips,
    });
    Object.assign(error.details, {
      echoText: `(deffunction ${this.module}::${name}${comment}\n   ${found}`,
    });
    throw error;
  }

  private defineRuleAst(
    ast: RuleAst,
    source: string,
    hostActions: readonly unknown[] | undefined,
  ): void {
    const id = constructKey(ast.module, ast.name);
    const replaces = this.rules.has(id);
    if (replaces && !this.section?.rules.has(id)) this.beforeReplacing();
    this.addRule(ast, hostActions);
    const key = this.constructLog.rule(id, {
      source,
      ...(hostActions ? { actions: hostActions } : {}),
    });
    if (!replaces) this.journal({ kind: "rule", name: id, key });
  }

  private addRule(ast: RuleAst, hostActions: readonly unknown[] | undefined): void {
    const id = constructKey(ast.module, ast.name);
    if (this.rules.has(id)) this.removeRule(id);
    // A rule that fails to compile takes back what it had built (compileRule calls discard).
    let rule = ast;
    let dynamic: (() => number) | undefined;
    if (ast.salienceExpr) {
      const salience = compileExpr(ast.salienceExpr, {
        resolve: () => null,
        rhs: true,
        construct: `defrule ${ast.name}`,
      });
      dynamic = () => {
        const v = salience({ tok: null, local: null, rhs: new Map(), host: this.evalHost });
        if (typeof v !== "number" || v < -10000 || v > 10000) {
          throw rulesRuntimeError(
            `the salience of ${ast.name} must be an integer in -10000..10000`,
            {
              clips: "[PRCDRPSR3] Salience value must be an integer value.",
            },
          );
        }
        return v;
      };
      rule = { ...ast, salience: salienceWhenDefined(ast, dynamic) };
    }
    // With incremental reset off a new rule sees only what comes later (until a reset); a
    // restore links such a rule without its root token until the facts after it come.
    const mark = this.unrootedRestore?.get(id);
    const incremental = this.unrootedRestore !== null || this.switches.enabled("incremental-reset");
    this.net.primeMode = mark !== undefined ? "unrooted" : incremental ? "prime" : "link";
    let entry: RuleEntry;
    try {
      entry = compileRule(rule, hostActions, this.net, this.hooks, dynamic, this.objectSlots);
    } finally {
      this.net.primeMode = "prime";
    }
    this.rules.set(id, entry);
    const patterns = objectPatterns(ast.ces);
    if (patterns.length > 0) {
      const classes = this.objects.classList();
      this.ruleClasses.set(id, new Set(patterns.flatMap((ce) => patternClasses(ce, classes))));
    }
    if (mark !== undefined || !incremental) this.unprimed.set(id, mark ?? this.wm.nextId);
  }

  /** Rules defined with incremental reset off since the last reset, and the next fact index then. */
  private unprimed = new Map<string, number>();
  /** During a restore: the rules to link without their root token, by that fact index. */
  private unrootedRestore: Map<string, number> | null = null;

  /** Deletes the rule `key` as undefrule does: its activations (traced), breakpoint and text. */
  private deleteRule(key: string): void {
    for (const a of this.agenda.list()) {
      if (a.rule.name === key) {
        this.traceOf("activations", bareName(a.rule.name), () =>
          activationTrace(false, agendaLine(a)),
        );
      }
    }
    this.removeRule(key);
    // A deleted rule's breakpoint goes with it (a redefined one keeps it).
    this.breaks.forget(key);
    this.constructLog.delete(`defrule ${key}`);
    this.texts.forget("defrule", `${keyModule(key)}::${bareName(key)}`);
  }

  /**
   * After a construct form failed to define (in a batch or `build`): CLIPS deletes the
   * deftemplate, defrule, deffacts or definstances of its name as soon as it has read the name
   * (cstrcpsr.c), before the rest is parsed, so a failed redefinition leaves none. One still in
   * use stays (that was the failure, [CSTRCPSR4]). `load` and `defineRule` stay atomic: only the
   * CLIPS-program paths call this.
   */
  forgetFailedRedefinition(form: SList, module: string): void {
    const head = form.items[0];
    const node = form.items[1];
    if (head?.type !== "atom" || !DELETED_ON_REDEFINE.has(head.text)) return;
    if (node?.type !== "atom" || node.kind !== "symbol") return;
    const [mod, name] = splitName(node.text, module);
    if (name === "" || !this.modules.has(mod)) return;
    const key = constructKey(mod, name);
    switch (head.text) {
      case "defrule":
        if (this.rules.has(key) && key !== this.firingRule) this.deleteRule(key);
        return;
      case "deftemplate": {
        if (!this.texts.has("deftemplate", `${mod}::${name}`)) return;
        if (this.importConflict("deftemplate", name, mod)) return;
        if (templateInUse(this.texts, name) || this.wm.ofRelation(key).length > 0) return;
        this.undefineHost.remove("deftemplate", name, mod);
        return;
      }
      case "deffacts":
        if (this.texts.has("deffacts", `${mod}::${name}`)) {
          this.undefineHost.remove("deffacts", name, mod);
        }
        return;
      default:
        if (this.texts.has("definstances", name, mod) && !this.objects.instancesRunning(name)) {
          this.undefinstancesHost.remove(name);
        }
    }
  }

  private readonly hooks: ActivationHooks = {
    activate: (e, info, t) => this.activate(e, info, t),
    deactivate: (e, t) => this.deactivate(e, t),
    discard: (e) => this.discardRule(e),
  };

  private removeRule(name: string): void {
    const entry = this.rules.get(name);
    if (!entry) return;
    this.discardRule(entry);
    this.rules.delete(name);
    this.ruleClasses.delete(name);
    this.unprimed.delete(name);
  }

  /** Takes a rule's activations off the agenda and its unshared nodes out of the network. */
  private discardRule(entry: RuleEntry): void {
    const name = entry.name;
    for (const a of this.agenda.list()) if (a.rule.name === name) this.agenda.remove(a);
    for (const b of entry.built) this.net.detach(b);
  }

  // ── working memory ──────────────────────────────────────────────────────────────────────

  /**
   * Asserts a fact; returns its index, or null when an identical fact already exists (CLIPS
   * suppresses duplicates).
   */
  assert(fact: FactInput): number | null {
    const resolved = resolveFactInput(fact, this.templates, this.parseContext(), this.evalHost);
    // A host's values are checked against the slots' constraints before the fact is made.
    if (resolved.kind === "template") {
      for (const [i, v] of resolved.slots) {
        const slot = resolved.template.slots[i] as SlotDef;
        const broken = slotViolation(slot, v);
        if (broken !== null) {
          throw rulesRuntimeError(violationText(resolved.template.name, slot, broken), {
            clips: `[CSTRNCHK1] A literal slot value found in the assert command\n${broken} for slot ${slot.name}.`,
          });
        }
      }
    }
    const f = this.assertResolved(resolved);
    return f ? f.factId : null;
  }

  /**
   * True, after taking back the fact just made, when the firing rule's logical match is gone
   * (its actions retracted a fact of it): CLIPS then asserts nothing (AddLogicalDependencies
   * fails) and uses no fact index.
   */
  private refusedUnsupported(fact: Fact): boolean {
    if (!this.tms.current?.dead) return false;
    this.wm.remove(fact);
    this.wm.nextId = fact.factId;
    return true;
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
    // A rule's modify leaves an ordered fact alone (as CLIPS does); a host is told.
    if (fact.template === null) {
      throw rulesRuntimeError(
        `fact f-${id} is an ordered fact; modify and duplicate need a template fact`,
        { hint: "Retract and assert ordered facts instead." },
      );
    }
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

  private assertResolved(r: ResolvedFact): Fact | null {
    if (this.wm.byId.size >= this.limits.maxFacts)
      throw ruleLimitError("maxFacts", this.limits.maxFacts);
    let fact: Fact | null;
    if (r.kind === "ordered") {
      if (this.templates.has(r.relation)) {
        throw rulesRuntimeError(`${r.relation} is a deftemplate; assert it with slots`);
      }
      // The fact's relation is its implied deftemplate's key, as seen from the current module.
      // Made when run (an API assert, a pre-parsed rule's action): kept for matching, not listed
      // (a parse of the same text would have listed it as a construct's or command's).
      fact = this.wm.create(this.impliedKey(r.relation, this.module, false), null, r.fields);
    } else {
      fact = this.wm.create(
        r.template.key ?? r.template.name,
        r.template,
        templateValues(r.template, r.slots, this.evalHost),
      );
    }
    if (!fact) {
      const existing = this.wm.duplicateOf;
      if (existing) this.tms.asserted(existing, true);
    } else if (this.refusedUnsupported(fact)) {
      return null;
    }
    if (fact) {
      if (this.watches.mayWatch("facts"))
        this.traceOf("facts", factTemplateName(fact), () =>
          factTrace(true, factLine(fact as Fact)),
        );
      this.tms.asserted(fact, false);
      try {
        this.net.assertFact(fact);
      } catch (error) {
        // A test that failed half-way through matching: take the fact back out, so a failed
        // assert leaves working memory, the agenda and the next fact index as they were.
        this.retractFact(fact);
        this.wm.nextId = fact.factId;
        throw error;
      }
      this.tms.flush(this.retractLost);
      if (this.switches.enabled("dynamic-constraint-checking")) checkFactConstraints(fact);
    }
    return fact;
  }

  /** A rule's place in definition order (truth maintenance orders what several rules lost). */
  private readonly ruleRank = (rule: string): number => [...this.rules.keys()].indexOf(rule);

  /** Takes away what lost its logical support: a fact is retracted, an instance deleted. */
  private readonly retractLost = (f: Fact): void => {
    if (!(f instanceof ObjectFact)) this.retractFact(f);
    else if (!f.instance.deleted) this.objects.send(f.instance, "delete", []);
  };

  private retractFact(fact: Fact): void {
    if (fact.retracted) return;
    if (this.watches.mayWatch("facts"))
      this.traceOf("facts", factTemplateName(fact), () => factTrace(false, factLine(fact)));
    this.wm.remove(fact);
    this.tms.retracted(fact);
    this.net.retractFact(fact);
    this.tms.flush(this.retractLost);
  }

  // ── agenda and run ──────────────────────────────────────────────────────────────────────

  private activate(entry: RuleEntry, info: RuleInfo, t: Token): void {
    if (this.quietRules?.has(entry)) return;
    const a: Activation = {
      rule: info,
      token: t,
      salience:
        info.dynamicSalience && this.salienceEvaluation !== "when-defined"
          ? info.dynamicSalience()
          : info.salience,
      timetag: this.agenda.nextTimetag(),
      prev: null,
      next: null,
      group: null,
      memory: null,
      extNext: null,
    };
    setAct(entry, t, a);
    if (this.restoring) {
      const key = activationKey(info, t);
      const list = this.restoring.get(key) ?? [];
      list.push(a);
      this.restoring.set(key, list);
      return;
    }
    this.agenda.add(a);
    if (this.watches.mayWatch("activations"))
      this.traceOf("activations", bareName(a.rule.name), () =>
        activationTrace(true, agendaLine(a)),
      );
    if (info.autoFocus) this.agenda.pushFocus([info.module ?? MAIN]);
  }

  private deactivate(entry: RuleEntry, t: Token): void {
    const a = takeAct(entry, t);
    if (!a) return;
    this.agenda.remove(a);
    if (this.watches.mayWatch("activations"))
      this.traceOf("activations", bareName(a.rule.name), () =>
        activationTrace(false, agendaLine(a)),
      );
  }

  /** The agenda in firing order, as data. */
  agendaEntries(): AgendaEntry[] {
    return this.agenda.list().map((a) => {
      // One walk of the token: each pattern's fact index, and the instances' names apart.
      const instances: string[] = [];
      const facts = matchesOf(a.token, a.rule.display.length).map((m, i) => {
        if (a.rule.display[i] !== "fact" || !m) return null;
        if (!(m.fact instanceof ObjectFact)) return m.fact.factId;
        instances.push(m.fact.instance.instanceName.name);
        return null;
      });
      return {
        rule: a.rule.name,
        salience: a.salience,
        facts,
        ...(instances.length > 0 ? { instances } : {}),
        bindings: this.bindingsOf(a),
      };
    });
  }

  /** The text of `(agenda)`. */
  agendaText(module?: Value): string {
    // CLIPS's checks of agenda's argument: a symbol, then `*` or a module's name.
    if (module !== undefined && typeof module !== "string") {
      throw rulesRuntimeError("agenda expects a module name", {
        clips: "[ARGACCES5] Function agenda expected argument #1 to be of type symbol",
      });
    }
    if (module === "*") {
      // Each module under its name, activations indented, one total at the end.
      let text = "";
      let count = 0;
      for (const m of this.modules) {
        const acts = this.agenda.listModule(m);
        text += `${m}:\n${acts.map((a) => `   ${agendaLine(a)}\n`).join("")}`;
        count += acts.length;
      }
      return count === 0
        ? text
        : `${text}For a total of ${count} activation${count === 1 ? "" : "s"}.\n`;
    }
    if (module !== undefined && !this.modules.has(module)) {
      throw rulesRuntimeError(`agenda: no module ${module}`, {
        clips: "[ARGACCES5] Function agenda expected argument #1 to be of type defmodule name",
      });
    }
    return agendaListing(this.agenda.listModule(module ?? this.module));
  }

  /**
   * Fires activations until the agenda is empty, `limit` rules have fired, or a rule halts.
   * Returns the firings in order (rule, facts, bindings).
   */
  run(limit?: number): Firing[] {
    // CLIPS ignores a run started while rules are firing (a rule's (run) or a host callback).
    if (this.running) return [];
    this.running = true;
    this.halted = false;
    // A run inside a top-level command keeps the command's deadline.
    const outermost = this.deadline === Number.POSITIVE_INFINITY;
    if (outermost) this.deadline = Date.now() + this.limits.maxRunMs;
    const fired: Firing[] = [];
    const stats = this.watches.has("statistics") ? new RunStatistics(this.counts()) : null;
    const maxFirings = this.limits.maxFirings;
    try {
      while (!this.halted && (limit === undefined || limit < 0 || fired.length < limit)) {
        const a = this.nextToFire();
        if (!a) break;
        if (fired.length >= maxFirings)
          throw ruleLimitError("maxFirings", maxFirings, mostFired(fired) ?? a.rule.name);
        if (Date.now() > this.deadline)
          throw ruleLimitError("maxRunMs", this.limits.maxRunMs, mostFired(fired) ?? a.rule.name);
        fired.push(this.fire(a, fired.length + 1));
        // CLIPS stops before a rule with a breakpoint once the run has fired one.
        const next = this.breaks.size > 0 ? this.nextToFire() : null;
        if (next && this.breaks.has(next.rule.name)) {
          this.onPrint(`Breaking on rule ${bareName(next.rule.name)}.\n`);
          break;
        }
        // CLIPS evaluates every dynamic salience again after each firing.
        if (this.salienceEvaluation === "every-cycle") this.refreshSaliences();
        stats?.add(this.counts());
      }
    } finally {
      this.running = false;
      if (outermost) this.deadline = Number.POSITIVE_INFINITY;
    }
    if (stats && this.watches.has("statistics")) this.onPrint(stats.text(fired.length));
    return fired;
  }

  /**
   * The activation to fire next. CLIPS focuses MAIN whenever it looks with an empty focus
   * stack: as a run starts, and after a rule's (return) or (pop-focus) emptied it.
   */
  private nextToFire(): Activation | null {
    if (this.agenda.focus() === null) this.agenda.pushFocus([MAIN]);
    return this.agenda.next();
  }

  /** Facts and activations now, for `(watch statistics)`. */
  private counts(): { facts: number; instances: number; activations: number } {
    return {
      facts: this.wm.byId.size,
      instances: this.objects.count,
      activations: this.agenda.size,
    };
  }

  /** The engine's bounds on evaluation. */
  get ruleLimits(): RuleLimits {
    return this.limits;
  }

  /**
   * Sets bounds over `DEFAULT_RULE_LIMITS` (each a whole number of at least 1); what is left out
   * goes back to its default. The bounds are the host's, not the program's: clear, reset and
   * restore keep them.
   *
   * @example
   * engine.setLimits({ maxFirings: 10_000, maxRunMs: 5_000 });
   */
  setLimits(limits: Partial<RuleLimits>, base: RuleLimits = DEFAULT_RULE_LIMITS): void {
    this.limits = resolveRuleLimits(limits, base);
  }

  /** RULES_LIMIT (naming the rule firing, if any) once the current run is past its wall time. */
  private checkDeadline(): void {
    if (Date.now() > this.deadline)
      throw ruleLimitError("maxRunMs", this.limits.maxRunMs, this.firingRule);
  }

  /** Every firing since the engine was created or last cleared (the explanation log). */
  explain(): readonly Firing[] {
    return this.firingLog;
  }

  /**
   * Empties the explanation log; facts, agenda and rules stay. For a host that reads each run's
   * firings from run() and snapshots often: the log, which snapshots carry, otherwise grows with
   * every firing since the engine was created.
   *
   * @example
   * const firings = engine.run(); // route on these
   * engine.forgetFirings();
   * save(engine.snapshot()); // the state, without the history
   */
  forgetFirings(): void {
    this.firingLog = [];
  }

  private bindingsOf(a: Activation): Record<string, unknown> {
    return bindingsOf(entryFor(this.rules, a).built, a, this.evalHost);
  }

  private fire(a: Activation, n: number): Firing {
    const { entry, built } = entryFor(this.rules, a);
    if (this.watches.mayWatch("rules"))
      this.traceOf("rules", bareName(a.rule.name), () =>
        fireTrace(n, bareName(a.rule.name), activationFacts(a)),
      );
    this.agenda.remove(a);
    this.setModule(a.rule.module ?? MAIN);
    delAct(entry, a.token);
    const { facts, instances } = firedMatches(a);
    const bindings = bindingsOf(built, a, this.evalHost);
    const firing: Firing = {
      rule: bareName(entry.name),
      facts,
      ...(instances ? { instances } : {}),
      bindings,
      ...(entry.hostActions ? { actions: entry.hostActions } : {}),
    };
    this.firingLog.push(firing);
    // The log keeps the latest firings; dropping half at a time keeps the cost per firing flat.
    if (this.firingLog.length > this.limits.maxFiringLog)
      this.firingLog.splice(0, this.firingLog.length - Math.ceil(this.limits.maxFiringLog / 2));
    this.tms.current = entry.logical ? logicalToken(a.token, entry.logical) : null;
    this.tms.currentRule = entry.name;
    this.firingRule = entry.name;
    this.objects.topLevel = false;
    try {
      // CLIPS's (return) takes the rule's module, wherever it is on the stack, out of focus.
      if (runActions(entry, built, a, this.evalHost, () => this.exited)) {
        this.agenda.removeFocus(a.rule.module ?? MAIN);
      }
    } finally {
      this.objects.topLevel = true;
      this.tms.current = null;
      this.firingRule = undefined;
    }
    return firing;
  }

  // ── reset, clear, snapshot ──────────────────────────────────────────────────────────────

  private initialise(): void {
    const duplication = this.wm.duplication;
    this.wm = new WorkingMemory();
    this.wm.duplication = duplication;
    // The strategy is a setting of the environment: clear keeps it, as in CLIPS.
    const strategy = this.agenda.strategy;
    this.agenda = new FocusAgenda();
    this.agenda.onFocus = (m) => this.setModule(m);
    this.agenda.strategy = strategy;
    this.agenda.trace = this.focusTrace;
    this.setModule(MAIN);
    this.modules = new Set([MAIN]);
    this.moduleExports.clear();
    this.moduleImports.clear();
    this.mainRedefinable = true;
    this.net = new Network(
      () => this.evalHost,
      (relation) =>
        relation === OBJECT_RELATION ? this.instanceFacts.all() : this.wm.ofRelation(relation),
    );
    this.templates = new Map();
    this.implied.clear();
    this.deffacts = new Map();
    this.initialFacts = true;
    this.initialTemplate = true;
    this.rules = new Map();
    this.ruleClasses = new Map();
    this.constructLog = new ConstructLog(() => this.module);
    this.logKeys = new Map();
    this.texts.clear();
    this.firingLog = [];
    this.tms = new TruthMaintenance((rule) => this.ruleRank(rule));
    this.unprimed = new Map();
    this.procs = this.newProcedures();
    this.objects.watcher = null;
    this.objects.clear();
    this.instanceFacts.clear();
    this.objects.watcher = this.instanceFacts;
    this.objects.watching = (item) => this.watches.has(item);
    this.objects.constraintChecking = () => this.switches.enabled("dynamic-constraint-checking");
    this.objects.staticChecking = () => this.switches.enabled("static-constraint-checking");
    this.objects.moduleExists = (name) => this.modules.has(name);
    this.generics.clear();
    // [initial-object] first, then (initial-fact), as CLIPS's clear traces them.
    this.objects.makeInitialObject();
    this.assertResolved({ kind: "ordered", relation: "initial-fact", fields: [] });
  }

  /**
   * The first step of clear, as CLIPS's: each instance deleted by the delete message (its
   * handlers run; no deletion is traced under (watch instances)). A failing handler stops clear
   * there with everything kept: false.
   */
  private clearInstances(): boolean {
    const watching = this.objects.watching;
    this.objects.watcher = null;
    this.objects.watching = (item) => item !== "instances" && watching(item);
    try {
      this.objects.removeAll();
      return true;
    } catch (e) {
      if (!isKeelError(e) || typeof e.details.clips !== "string") throw e;
      if (e.details.clips !== "") this.onPrint(clipsMessageText(e.details.clips));
      this.onPrint("[CONSTRCT1] Some constructs are still in use. Clear cannot continue.\n");
      this.objects.watcher = this.instanceFacts;
      return false;
    } finally {
      this.objects.watching = watching;
    }
  }

  /** Removes every construct and fact (CLIPS `clear`); `(initial-fact)` is f-0 again. */
  clear(): void {
    if (this.running) {
      // CLIPS 6.30 will not remove the constructs of a firing rule: it deletes every instance
      // and fact, says so, and keeps constructs and globals.
      this.objects.removeAll();
      for (const f of this.wm.all()) this.retractFact(f);
      this.onPrint("[CONSTRCT1] Some constructs are still in use. Clear cannot continue.\n");
      return;
    }
    if (!this.clearInstances()) return;
    this.initialise();
    this.breaks.clear();
    // CLIPS's clear ends with a reset of the focus stack: `(watch focus)` shows MAIN popped and
    // pushed again.
    this.agenda.clear();
  }

  /** Retracts every fact, then asserts `(initial-fact)` as f-0 and the deffacts (CLIPS `reset`). */
  reset(): void {
    // A reset called while resetting (a deffacts field `=(reset)`) does nothing, as in CLIPS.
    if (this.resetting) return;
    this.resetting = true;
    try {
      this.resetOnce();
    } finally {
      this.resetting = false;
    }
  }

  private resetting = false;
  /** The rules that get no activation while reset retracts the facts (see resetOnce). */
  private quietRules: ReadonlySet<RuleEntry> | null = null;

  /**
   * Removes the activations of the rules without patterns, then of those led by a not, the
   * newest rule first in each kind, as CLIPS's reset does before any fact goes. Returns the
   * rules led by a not.
   */
  private removePrimeActivations(): Set<RuleEntry> {
    const newest = [...this.rules.values()].reverse();
    const kind = new Map(
      newest.map((e) => [e, e.built[0] ? this.net.primeKind(e.built[0]) : null]),
    );
    const left = new Set<RuleEntry>();
    for (const want of ["right", "left"] as const) {
      for (const e of newest) {
        if (kind.get(e) !== want) continue;
        if (want === "left") left.add(e);
        for (const a of this.agenda.list()) if (a.rule.name === e.name) this.deactivate(e, a.token);
      }
    }
    return left;
  }

  private resetOnce(): void {
    // CLIPS first takes back the activations its prime joins gave (rulebsc.c ResetDefrules);
    // while the facts go, the rules led by a not stay quiet (CLIPS marks their root match).
    this.quietRules = this.removePrimeActivations();
    try {
      // CLIPS deletes the instances first, then retracts the facts.
      this.objects.removeAll();
      for (const f of this.wm.all()) this.retractFact(f);
    } finally {
      this.quietRules = null;
    }
    this.agenda.clear();
    this.setModule(MAIN);
    // Globals first: the root token activates rules without patterns, whose dynamic salience
    // may read them. (set-reset-globals FALSE) keeps their values across resets.
    // Fact indexes start again before the globals: a global's `(assert …)` makes f-0 (CLIPS).
    this.wm.nextId = 0;
    if (this.switches.enabled("reset-globals")) this.procs.resetGlobals();
    // The root token reaches every rule again: those defined without incremental reset too.
    this.unprimed.clear();
    this.net.resetRoot();
    this.objects.reset();
    if (this.initialFacts) {
      this.assertResolved({ kind: "ordered", relation: "initial-fact", fields: [] });
    }
    for (const [id, d] of this.deffacts) {
      // A deffacts' ordered facts are of the implied deftemplates its module sees.
      this.setModule(keyModule(id));
      for (const spec of d.facts) {
        const fn = compileExpr(
          { k: "assert", facts: [spec], pos: spec.pos },
          { resolve: () => null, rhs: false },
        );
        fn({ tok: null, local: null, rhs: null, host: this.evalHost });
      }
    }
    this.setModule(MAIN);
  }

  /** The whole state as plain JSON: constructs, facts, agenda (with refraction), counters. */
  snapshot(): EngineSnapshot {
    return this.snapshotWith(this.constructLog.list());
  }

  /** The engine's state as a snapshot holding the given constructs. */
  private snapshotWith(constructs: Parameters<typeof snapshotOf>[0]): EngineSnapshot {
    return {
      ...snapshotOf(
        constructs,
        this.wm,
        this.agenda,
        this.firingLog,
        this.procs.globalValues(),
        this.objectState(),
      ),
      ...this.moduleState(),
      ...this.impliedState(),
      ...this.unprimedState(),
    };
  }

  /** The implied deftemplates commands made, for a snapshot (the constructs remake theirs). */
  private impliedState(): { impliedTemplates?: string[]; hollowFunctions?: string[] } {
    const keys = this.texts.commandImpliedKeys();
    // A deffunction kept without text is one (undeffunction *) emptied.
    const hollow = [...this.texts.entries()]
      .filter((e) => e.kind === "deffunction")
      .map((e) => `${e.module}::${e.name}`)
      .filter((id) => this.texts.pretty("deffunction", id) === "");
    return {
      ...(keys.length > 0 ? { impliedTemplates: keys } : {}),
      ...(hollow.length > 0 ? { hollowFunctions: hollow } : {}),
    };
  }

  /** The behaviour switches; incremental reset cannot change while rules are defined (CLIPS). */
  private switchCommand(name: string, args: Value[]): Value | null {
    if (name === "set-incremental-reset" && args.length === 1 && this.rules.size > 0) {
      throw rulesRuntimeError("incremental reset cannot change while rules are defined", {
        clips: "[INCRRSET1] The incremental reset behavior cannot be changed with rules loaded.",
        hint: "Call set-incremental-reset after (clear), before defining rules.",
      });
    }
    return this.switches.command(name, args);
  }

  /** A restore reached fact `id`: the rules defined before it was asserted get the root token. */
  private rootUnprimed(id: number): void {
    const pending = this.unrootedRestore;
    if (pending === null || pending.size === 0) return;
    for (const [rule, mark] of pending) {
      if (id < mark) continue;
      pending.delete(rule);
      for (const b of this.rules.get(rule)?.built ?? []) this.net.giveRoot(b);
    }
  }

  /** The rules defined with incremental reset off since the last reset (for a snapshot). */
  private unprimedState(): { unprimedRules?: [string, number][] } {
    return this.unprimed.size > 0 ? { unprimedRules: [...this.unprimed] } : {};
  }

  /**
   * Empties deffunction `module::name` (its arity stays) and drops its text: CLIPS's partial
   * deletion.
   */
  private hollowFunction(module: string, name: string): void {
    const id = `${module}::${name}`;
    const form = this.texts.formOf("deffunction", id);
    if (!form) return;
    const params = form.items.findIndex((n, i) => i > 1 && n.type === "list");
    this.procs.defineFunction(
      parseDeffunction({ ...form, items: form.items.slice(0, params + 1) }, this.parseContext()),
      constructKey(module, name),
    );
    this.texts.dropText("deffunction", id);
  }

  /**
   * CLIPS makes an implied deftemplate in the current module for an ordered relation a pattern
   * or an asserted fact names, unless one is visible there already; check-syntax makes none.
   */
  private noteImplied(name: string, module: string): void {
    if (name === "initial-fact" && this.initialTemplate) return;
    if (this.texts.has("deftemplate", name, module)) return;
    this.texts.recordImplied(name, module, this.parsing.construct === undefined);
    this.section?.implied.push(`${module}::${name}`);
  }

  /** The current module for a snapshot, when not MAIN, the breakpoints and logical support, when any. */
  private moduleState(): { module?: string; breaks?: string[]; logical?: LogicalSnapshot } {
    const logical = logicalSnapshot(this.tms, this.rules);
    return {
      ...(this.module === MAIN ? {} : { module: this.module }),
      ...(this.breaks.size > 0 ? { breaks: this.breaks.list() } : {}),
      ...(logical ? { logical } : {}),
    };
  }

  /** A defglobal's value (`name` without the `?*…*`); [GLOBLDEF1] when there is none. */
  globalValue(name: string): Value {
    return this.procs.global(name);
  }

  /** Replaces the whole state with a snapshot (host functions stay as registered). */
  restore(s: EngineSnapshot): void {
    checkSnapshot(s);
    this.initialise();
    for (const f of this.wm.all()) this.retractFact(f);
    this.agenda.clear();
    this.restoring = new Map();
    this.unrootedRestore = new Map(s.unprimedRules ?? []);
    this.objects.restoringModes = new Set(s.conservationClasses ?? []);
    // Replaying the constructs remakes their implied deftemplates, even under check-syntax.
    const checking = this.checkingSyntax;
    this.checkingSyntax = false;
    try {
      for (const c of s.constructs) {
        this.setModule(c.module ?? MAIN);
        for (const form of readForms(c.source)) this.defineConstruct(form as SList, c.actions);
      }
      this.objects.restoringModes = null;
      this.objects.defaultsMode = s.classDefaultsMode ?? "convenience";
      const refs = new Map<number, FactRef>();
      const factRef = (id: number): FactRef =>
        refs.get(id) ?? this.wm.byId.get(id) ?? { factId: id, retracted: true };
      for (const f of s.facts) {
        const template = this.templates.get(f.relation) ?? null;
        const values = f.values.map((v) => decodeValue(v, factRef));
        const fact = this.wm.create(f.relation, template, values, f.id);
        // An ordered fact's relation is the key of its implied deftemplate.
        if (template === null) this.implied.add(f.relation);
        if (fact) {
          refs.set(fact.factId, fact);
          this.rootUnprimed(fact.factId);
          this.net.assertFact(fact);
        }
      }
      this.rootUnprimed(Number.POSITIVE_INFINITY);
      this.wm.nextId = s.nextFactId;
      for (const [name, v] of Object.entries(s.globals ?? {})) {
        if (this.procs.hasGlobal(name)) this.procs.setGlobal(name, decodeValue(v, factRef));
      }
      if (s.instances) {
        this.objects.restoreInstances(
          s.instances.map((i) => ({
            name: i.name,
            cls: i.cls,
            tag: i.tag ?? 0,
            slots: Object.entries(i.slots).map(([k, v]) => [k, decodeValue(v, factRef)]),
          })),
        );
      }
      this.objects.gensymCounter = s.gensym ?? 1;
      this.objects.heldGensyms.clear();
      for (const name of s.heldGensyms ?? []) this.objects.heldGensyms.add(name);
      const pending = this.restoring;
      for (const e of s.agenda) {
        const key = snapshotEntryKey(e.rule, e.disjunct ?? 0, e.facts);
        const a = pending.get(key)?.shift();
        if (!a) continue;
        a.timetag = e.timetag;
        this.agenda.add(a);
      }
      // Activations not listed had already fired (refraction): drop them.
      for (const list of pending.values()) {
        for (const a of list) delActOf(this.rules.get(a.rule.name), a.token);
      }
      if (s.logical)
        restoreLogical(
          this.tms,
          s.logical,
          this.rules,
          this.net.root.token,
          (id) => this.wm.byId.get(id) ?? this.instanceFacts.byTag(id),
        );
      this.agenda.timetagClock = s.clock;
      this.setModule(s.module ?? MAIN);
      // Those only a command made (an assert at top level) are not remade by the constructs.
      for (const key of s.impliedTemplates ?? []) {
        const [module, name] = splitName(key, MAIN);
        if (!this.texts.has("deftemplate", key)) this.texts.recordImplied(name, module, true);
        this.implied.add(constructKey(module, name));
      }
      for (const id of s.hollowFunctions ?? []) this.hollowFunction(...splitName(id, MAIN));
      this.breaks.clear();
      this.breaks.setAll((s.breaks ?? []).filter((r) => this.rules.has(r)));
      if (s.focus) this.agenda.stack = [...s.focus];
      // The explanation log is part of the state: explain() answers the same after a restore.
      this.firingLog = s.firings ? [...s.firings] : [];
    } finally {
      this.unrootedRestore = null;
      this.restoring = null;
      this.objects.restoringModes = null;
      this.checkingSyntax = checking;
    }
  }

  /** The focus stack's trace printer, or null while focus is not watched. */
  private get focusTrace(): ((text: string) => void) | null {
    return this.watches.has("focus") ? this.onPrint : null;
  }

  private newProcedures(): Procedures {
    const procs = new Procedures(
      () => this.evalHost,
      (name, now, before) => {
        if (this.watches.watching("globals", name)) this.onPrint(globalTrace(name, now, before));
      },
      () => this.module,
      (begin, name, depth, args) => {
        if (this.watches.has("deffunctions"))
          this.onPrint(deffunctionTrace(begin, name, depth, args));
      },
    );
    procs.scope = this.moduleScope;
    return procs;
  }

  /** Prints a trace message when the construct `name` of `item` is watched (`(watch rules foo)`). */
  private traceOf(item: WatchItem, name: string, text: () => string): void {
    if (this.watches.watching(item, name)) this.onPrint(text());
  }

  /** The constructs `watch` and `list-watch-items` name. */
  private readonly watchListHost: WatchListHost = {
    modules: () => [...this.modules],
    names: (kind, module) => {
      const names = this.texts.names(kind as ConstructKind, module);
      // The built-in initial-fact deftemplate is MAIN's first.
      return kind === "deftemplate" && module === MAIN && this.initialTemplate
        ? ["initial-fact", ...names]
        : names;
    },
    exists: (kind, n) =>
      kind === "deftemplate"
        ? this.templates.has(this.templateKey(n))
        : this.texts.has(kind as ConstructKind, n),
  };

  private setModule(name: string): void {
    this.module = name;
    this.parsing.currentModule = name;
  }

  /** Only MAIN can be defined again, and only until it is with imports or exports (CLIPS). */
  private mainRedefinable = true;

  private checkModuleRedefinition(form: SList): void {
    const name = form.items[1];
    if (name?.type !== "atom" || !this.modules.has(name.text)) return;
    if (name.text === MAIN && this.mainRedefinable) return;
    throw moduleError(
      name,
      `[CSTRCPSR4] Cannot redefine defmodule ${name.text} while it is in use.`,
      `(defmodule ${name.text}`,
    );
  }

  /** What each defmodule exports (null: nothing), for the checks of imports. */
  private readonly moduleExports = new Map<string, ModuleExports | null>();
  /** What each defmodule imports, in the order written. */
  private readonly moduleImports = new Map<string, readonly ModuleImport[]>();
  /** The modules and their imports and exports, as the scope of names reads them. */
  private readonly moduleGraph: ModuleGraph = {
    imports: (m) => this.moduleImports.get(m) ?? [],
    exports: (m) => this.moduleExports.get(m),
    defines: (kind, m, name) =>
      this.texts.has(kind as ConstructKind, `${m}::${name}`) ||
      (kind === "deftemplate" && this.implied.has(constructKey(m, name))),
  };

  /**
   * The key (`module-scope.ts`) of the deftemplate a typed name stands for from the current
   * module: `MOD::name` that module's, a bare name the current module's own, else the first
   * one its imports give; the current module's key when there is none.
   */
  private templateKey(typed: string): string {
    return this.scopedKey("deftemplate", typed, (key) => this.templates.has(key));
  }

  /**
   * The keys of the implied deftemplates (module-scope.ts): CLIPS 6.30 makes one for a relation
   * a pattern or an ordered fact names when the module sees no deftemplate of that name, in that
   * module. `(b)` asserted in A and in B are two facts of two deftemplates.
   */
  private readonly implied = new Set<string>();

  /**
   * The key of the implied deftemplate `name` seen from `module`: its own, else the first one
   * its imports give, else a new one of `module`.
   */
  private impliedKey(name: string, module = this.module, listed = true): string {
    const own = constructKey(module, name);
    if (this.implied.has(own)) return own;
    const seen = this.visibleImplied(name, module);
    if (seen !== undefined) return seen;
    if (this.importConflict("deftemplate", name, module)) {
      throw rulesRuntimeError(`implied deftemplate ${name} would be seen twice through imports`, {
        clips: `[CSTRCPSR3] Cannot define implied deftemplate ${name} because of an import/export conflict.`,
      });
    }
    // check-syntax makes none (CLIPS's check-syntax mode).
    if (this.checkingSyntax) return own;
    this.implied.add(own);
    if (listed) this.noteImplied(name, module);
    return own;
  }

  /** The key of the implied deftemplate `name` the current module sees, if any. */
  private seenImplied(name: string): string | undefined {
    const own = constructKey(this.module, name);
    return this.implied.has(own) ? own : this.visibleImplied(name, this.module);
  }

  /** The key of an implied deftemplate `name` that `module`'s imports give it, if any. */
  private visibleImplied(name: string, module: string): string | undefined {
    if (this.moduleImports.size === 0) return undefined;
    for (const from of importedModules(this.moduleGraph, "deftemplate", name, module)) {
      const key = constructKey(from, name);
      if (this.implied.has(key)) return key;
    }
    return undefined;
  }

  /**
   * Whether a fact is in the scope of `module` (its deftemplate is the module's own or one the
   * module imports), as CLIPS's `(facts)` lists them.
   */
  private factInScope(fact: Fact, module: string): boolean {
    const key = fact.template === null ? fact.relation : (fact.template.key ?? fact.template.name);
    return this.moduleScope.sees("deftemplate", key, module);
  }

  /** The facts `(facts [module])` lists: the current module's scope, a module's, or all (`*`). */
  private factsOfModule(module: string | undefined): Fact[] | null {
    const all = this.wm.all();
    if (module === "*") return all;
    const m = module ?? this.module;
    if (!this.modules.has(m)) return null;
    return all.filter((f) => this.factInScope(f, m));
  }

  /**
   * {@link templateKey} for a construct kind, typed in module `from`: `defines` says whether a
   * key is defined.
   */
  private scopedKey(
    kind: string,
    typed: string,
    defines: (key: string) => boolean,
    from = this.module,
  ): string {
    const at = typed.indexOf("::");
    if (at > 0) return constructKey(typed.slice(0, at), typed.slice(at + 2));
    const own = constructKey(from, typed);
    if (defines(own) || this.moduleImports.size === 0) return own;
    const first = importedModules(this.moduleGraph, kind, typed, from)[0];
    return first === undefined ? own : constructKey(first, typed);
  }

  /** The modules' scope of names, as the construct tables read it (module-scope.ts). */
  private readonly moduleScope: ModuleScope = {
    current: () => this.module,
    modules: () => [...this.modules],
    key: (kind, typed, defines, from) => this.scopedKey(kind, typed, defines, from),
    sees: (kind, key, from) => {
      const owner = keyModule(key);
      if (owner === from) return true;
      if (this.moduleImports.size === 0) return false;
      return importedModules(this.moduleGraph, kind, bareName(key), from).includes(owner);
    },
    enter: (module) => {
      const before = this.module;
      if (before !== module) this.setModule(module);
      return before;
    },
    // A set-current-module in the actions is undone too.
    leave: (before) => {
      if (this.module !== before) this.setModule(before);
    },
  };

  /**
   * The key (module-scope.ts) of the deffunction or generic function a call typed in the current
   * module names: `MOD::name` that module's, a bare name the module's own or one it imports;
   * a built-in or host function's name stays as it is.
   */
  private functionKey(typed: string, module = this.module): string {
    const at = typed.indexOf("::");
    if (at > 0) return constructKey(typed.slice(0, at), typed.slice(at + 2));
    const own = constructKey(module, typed);
    if (this.procs.hasFunction(own)) return own;
    for (const kind of this.moduleImports.size > 0 ? ["deffunction", "defgeneric"] : []) {
      const from = importedModules(this.moduleGraph, kind, typed, module)[0];
      if (from !== undefined) return constructKey(from, typed);
    }
    return isKnownFunction(typed) || this.hostFns.has(typed) ? typed : own;
  }

  /** The key of the rule a typed name stands for from the current module (see templateKey). */
  private ruleKey(typed: string): string {
    return this.scopedKey("defrule", typed, (key) => this.rules.has(key));
  }
  private readonly importHost: ImportHost = {
    exports: (m) => (this.modules.has(m) ? (this.moduleExports.get(m) ?? null) : undefined),
    // A module that imports may pass on what it imports (and exports).
    defines: (kind, m, name) =>
      this.texts.has(kind as ConstructKind, `${m}::${name}`) ||
      importedModules(this.moduleGraph, kind, name, m).length > 0,
  };

  private readonly undefineHost: UndefineHost = {
    texts: this.texts,
    module: () => this.module,
    busy: (kind, name, module) =>
      kind === "deftemplate"
        ? this.wm.ofRelation(constructKey(module, name)).length > 0
        : kind === "deffunction" && this.functionBusy(constructKey(module, name)),
    executing: (name, module) => this.procs.running(constructKey(module, name)),
    hollow: (name, module) => this.hollowFunction(module, name),
    remove: (kind, name, module) => {
      const id = `${module}::${name}`;
      if (kind === "deffunction") this.procs.forgetFunction(constructKey(module, name));
      else if (kind === "deftemplate") {
        this.templates.delete(constructKey(module, name));
        this.implied.delete(constructKey(module, name));
      } else if (kind === "defglobal") this.procs.forgetGlobal(name, module);
      else this.deffacts.delete(id);
      this.texts.forget(kind, id);
      const logKey =
        kind === "deffunction" ? `${kind} ${constructKey(module, name)}` : `${kind} ${id}`;
      const key = this.logKeys.get(logKey);
      this.logKeys.delete(logKey);
      // A defglobal's text stays while another global it defines is left.
      if (key !== undefined && ![...this.logKeys.values()].includes(key)) {
        this.constructLog.delete(key);
      }
    },
    print: (text) => this.onPrint(text),
    initialFacts: () => this.initialFacts,
    dropInitialFacts: () => {
      this.initialFacts = false;
    },
    initialTemplate: () => this.initialTemplate,
    dropInitialTemplate: () => {
      this.initialTemplate = false;
    },
  };

  /** Each method's form with its generic function's module (where its names resolve). */
  private methodForms(): { form: SList; module: string }[] {
    return this.generics.keys().flatMap((g) =>
      (this.generics.describe(g) ?? []).flatMap((m) => {
        const form = this.generics.methodForm(g, m.index);
        return form ? [{ form, module: keyModule(g) }] : [];
      }),
    );
  }

  /**
   * How code of `module` may write the class `cls`: `MOD::NAME`, and its bare name where that
   * resolves to it (another module's class of that name is another class).
   */
  private classWrittenAs(cls: ClassDef, module: string): string[] {
    const qualified = `${cls.module}::${cls.name}`;
    return this.objects.classNamed(cls.name, module) === cls ? [cls.name, qualified] : [qualified];
  }

  private readonly classHolders: ClassHolders = {
    namedByMethod: (cls) =>
      this.methodForms().some(({ form, module }) =>
        this.classWrittenAs(cls, module).some((typed) => methodNamesClass(form, typed)),
      ),
    matchedByRule: (cls) => [...this.ruleClasses.values()].some((held) => held.has(cls)),
    handlersRunning: (cls) => this.objects.handlersRunning(cls),
    namedByCode: (cls) => {
      const handlers = this.objects.classList().flatMap((c) =>
        this.objects
          .handlerList(c)
          .flatMap((h) => (h.text ? readForms(h.text) : []))
          .map((form) => ({ form, module: c.module })),
      );
      const constructs = [...this.texts.entries()].map(({ form, module }) => ({ form, module }));
      return [...constructs, ...this.methodForms(), ...handlers].some(({ form, module }) =>
        this.classWrittenAs(cls, module).some((typed) => formNamesClass(form, typed)),
      );
    },
  };

  /** [CLASSPSR3]: a class something holds (class-holders.ts) cannot be defined again. */
  private checkClassIdle(form: SList): void {
    const named = form.items[1];
    // check-syntax does not look (CLIPS's check-syntax mode).
    if (this.checkingSyntax || named?.type !== "atom" || named.kind !== "symbol") return;
    const [module, name] = splitName(named.text, this.module);
    // Only a class of the module the defclass goes in is defined again.
    if (!this.texts.has("defclass", `${module}::${name}`)) return;
    const cls = this.objects.isSystemClass(name)
      ? undefined
      : this.objects.classNamed(name, module);
    if (cls === undefined || !classHeld(cls, this.classHolders)) return;
    // CLIPS stops at the `(` after the name (and comment).
    const next = form.items.slice(2).find((n) => n.type === "list") ?? form;
    throw rulesLoadError(next.pos, `class ${name} is in use: it cannot be redefined`, {
      construct: `defclass ${name}`,
      clips: `[CLASSPSR3] ${name} class cannot be redefined while\n    outstanding references to it still exist.`,
      echoOpen: true,
      hint: "Delete what uses it first (its instances, rules, methods, …).",
    });
  }

  /** Deletes a class and its subclasses with their texts and handlers (undefclass, redefinition). */
  private removeClass(def: ClassDef): void {
    for (const id of this.objects.removeClass(def)) {
      this.texts.forget("defclass", id);
      // Its defclass and handlers leave the construct log (a snapshot replays the log).
      for (const [logKey, key] of this.logKeys) {
        if (logKey === `defclass ${id}` || logKey.startsWith(`defmessage-handler ${id} `)) {
          this.constructLog.delete(key);
          this.logKeys.delete(logKey);
        }
      }
    }
  }

  private readonly undefclassHost: UndefclassHost<ClassDef> = {
    classNamed: (name) => this.objects.classNamed(name),
    isSystemClass: (name) => this.objects.isSystemClass(name),
    moduleClasses: () => this.texts.names("defclass", this.module),
    held: (cls) => classHeld(cls, this.classHolders),
    remove: (cls) => this.removeClass(cls),
    print: (text) => this.onPrint(text),
  };

  private readonly undefinstancesHost: UndefinstancesHost = {
    names: () => this.texts.names("definstances", this.module),
    has: (name) => this.texts.has("definstances", name, this.module),
    builtIn: () => this.module === "MAIN" && this.objects.initialObject,
    dropBuiltIn: () => {
      this.objects.initialObject = false;
    },
    remove: (name) => {
      this.objects.forgetInstances(constructKey(this.module, name));
      this.texts.forget("definstances", name, this.module);
      const logKey = `definstances ${this.module}::${name}`;
      const key = this.logKeys.get(logKey);
      this.logKeys.delete(logKey);
      if (key !== undefined) this.constructLog.delete(key);
    },
  };

  /**
   * Whether a deftemplate of this name exists for the fact-set queries: a defined one, the
   * built-in initial-fact, or an implied one (Keel keeps none: a relation a construct names or a
   * fact has stands for one).
   */
  private deftemplateKnown(name: string): boolean {
    if (this.templates.has(this.templateKey(name))) return true;
    if (name === "initial-fact" && this.initialTemplate) return true;
    // CLIPS makes an implied one for a relation a rule, deffacts or assert names.
    if (this.texts.has("deftemplate", name, this.module)) return true;
    if (templateInUse(this.texts, name) || this.wm.ofRelation(name).length > 0) return true;
    // An implied deftemplate of the current module or one its imports give.
    return this.seenImplied(name) !== undefined;
  }

  /**
   * A class save-instances names: `local` ones must be defined in the current module (system
   * classes are MAIN's); visible ones those it defines or imports.
   */
  private saveClass(name: string, local: boolean): { abstract: boolean } | null {
    const cls = this.objects.classNamed(name);
    if (!cls) return null;
    if (local && cls.module !== this.module) return null;
    return { abstract: cls.abstract };
  }

  /** The focus and module commands; null when `name` is not one. */
  /** What `dependencies` and `dependents` read: facts, instances, logical support. */
  private readonly dependencyHost: DependencyHost = {
    fact: (id) => this.wm.byId.get(id),
    instance: (v) => {
      const inst = this.objects.find(v);
      return inst === null ? null : (this.instanceFacts.factOf(inst) ?? null);
    },
    // CLIPS walks every instance, then every fact (its pattern parsers' order).
    facts: () => [...this.instanceFacts.all(), ...this.wm.all()],
    supportOf: (fact) => this.tms.supportOf(fact),
    print: (text) => this.onPrint(text),
  };

  /** What `ppfact` reads: facts and their slots' defaults. */
  private readonly ppfactHost: PpfactHost = {
    fact: (id) => this.wm.byId.get(id),
    defaultOf: (template, slot) => defaultFor(template, slot, this.evalHost),
    print: (text) => this.onPrint(text),
  };

  /** What the deftemplate slot functions read: templates, implied ones, defaults. */
  private readonly templateFunctionHost: TemplateFunctionHost = {
    template: (name) => {
      const t = this.templates.get(this.templateKey(name));
      if (t) return t;
      // An implied deftemplate the module sees.
      if (this.texts.isImplied(name, this.texts.scopeOf("deftemplate", name, this.module))) {
        return "implied";
      }
      const key = this.seenImplied(name) ?? name;
      return this.wm.all().some((f) => f.relation === key) ? "implied" : null;
    },
    defaultValue: (template, slot) => defaultFor(template, slot, this.evalHost),
    print: (text) => this.onPrint(text),
  };

  private engineCommand(name: string, args: Value[]): Value | null {
    const known = (m: Value): string => {
      if (typeof m !== "string" || !this.modules.has(m)) {
        throw rulesRuntimeError(`unable to find defmodule ${String(m)}`, {
          clips: `[PRNTUTIL1] Unable to find defmodule ${String(m)}.`,
        });
      }
      return m;
    };
    if (UNDEFINE_COMMANDS.has(name)) {
      undefine(name, args, this.undefineHost);
      return VOID;
    }
    if (name === "undefclass") {
      undefclass(args, this.undefclassHost);
      return VOID;
    }
    if (name === "undefinstances") {
      undefinstances(args, this.undefinstancesHost);
      return VOID;
    }
    if (TEMPLATE_FUNCTIONS.has(name))
      return templateFunction(this.templateFunctionHost, name, args);
    if (DEPENDENCY_COMMANDS.has(name))
      return dependencyCommand(this.dependencyHost, name, args[0] as Value);
    if (name === "ppfact") return ppfact(this.ppfactHost, args);
    switch (name) {
      case "eval":
      case "build":
        return this.evalOrBuild(name, args[0] as Value);
      case "sort":
        return sortCommand(this.sortHost, args);
      case "check-syntax":
        return this.checkSyntax(args[0] as Value);
      case "assert-string": {
        const text = args[0];
        if (text === undefined || !isString(text)) {
          throw rulesRuntimeError("assert-string expects a string", {
            clips: "[ARGACCES5] Function assert-string expected argument #1 to be of type string",
          });
        }
        const resolved = resolveFactInput(
          text.value,
          this.templates,
          this.parseContext(),
          this.evalHost,
        );
        return this.assertResolved(resolved) ?? FALSE;
      }
      case "set-salience-evaluation": {
        const mode = args[0];
        if (mode !== "when-defined" && mode !== "when-activated" && mode !== "every-cycle") {
          throw rulesRuntimeError(
            "set-salience-evaluation expects when-defined, when-activated or every-cycle",
            {
              clips:
                "[ARGACCES5] Function set-salience-evaluation expected argument #1 to be of type symbol with value when-defined, when-activated, or every-cycle",
            },
          );
        }
        const before = this.salienceEvaluation;
        this.salienceEvaluation = mode;
        return before;
      }
      case "get-salience-evaluation":
        return this.salienceEvaluation;
      case "refresh-agenda": {
        // The current module's agenda, a named module's, or every module's for `*`.
        const m = args[0];
        if (m !== undefined && typeof m !== "string") {
          throw rulesRuntimeError("refresh-agenda expects a module name", {
            clips: "[ARGACCES5] Function refresh-agenda expected argument #1 to be of type symbol",
          });
        }
        if (m !== undefined && m !== "*" && !this.modules.has(m)) {
          throw rulesRuntimeError(`refresh-agenda: no module ${m}`, {
            clips:
              "[ARGACCES5] Function refresh-agenda expected argument #1 to be of type defmodule name",
          });
        }
        this.refreshSaliences(m === "*" ? null : (m ?? this.module));
        return VOID;
      }
      case "matches":
        return matchesCommand(this.matchesHost, args);
      case "refresh":
        return refreshCommand(this.matchesHost, args);
      case "set-break":
      case "remove-break":
      case "show-breaks":
        return this.breaks.command(this.breaksHost, name, args);
      case "undefrule": {
        const target = args[0];
        if (typeof target !== "string") {
          throw rulesRuntimeError("undefrule expects a rule name", {
            clips: "[ARGACCES5] Function undefrule expected argument #1 to be of type symbol",
          });
        }
        // `*` is every rule of the current module, unless a rule is named `*` (CLIPS looks the
        // name up first).
        const star = localKey("*", this.module);
        const names =
          target === "*" && !this.rules.has(star)
            ? [...this.rules.values()]
                .map((e) => e.name)
                .filter((key) => keyModule(key) === this.module)
            : [this.ruleKey(target)];
        for (const n of names) {
          if (!this.rules.has(n)) {
            throw rulesRuntimeError(`unable to find defrule ${target}`, {
              clips: `[PRNTUTIL1] Unable to find defrule ${target}.`,
            });
          }
          // CLIPS keeps a rule whose actions are running (and says so).
          if (n === this.firingRule) {
            this.onPrint(`[PRNTUTIL4] Unable to delete defrule ${bareName(n)}.\n`);
            continue;
          }
          this.deleteRule(n);
        }
        return VOID;
      }
      case "focus":
        // CLIPS checks every argument's type before it looks any module up.
        args.forEach((m, i) => {
          if (typeof m !== "string") {
            throw rulesRuntimeError(`focus expects module names (symbols), not ${formatValue(m)}`, {
              clips: `[ARGACCES5] Function focus expected argument #${i + 1} to be of type symbol`,
            });
          }
        });
        this.agenda.pushFocus(args.map(known));
        return TRUE;
      case "pop-focus":
        return this.agenda.popFocus() ?? FALSE;
      case "get-focus":
        return this.agenda.focus() ?? FALSE;
      case "get-focus-stack":
        return [...this.agenda.stack].reverse();
      case "clear-focus-stack":
        this.agenda.clearStack();
        return VOID;
      case "watch":
      case "unwatch":
        this.watches.set(args, name === "watch", this.watchListHost.exists);
        this.agenda.trace = this.focusTrace;
        return VOID;
      case "list-watch-items":
        this.watches.list(args, this.watchListHost, this.onPrint);
        return VOID;
      case "list-focus-stack":
        for (const m of [...this.agenda.stack].reverse()) this.onPrint(`${m}\n`);
        return VOID;
      case "get-current-module":
        return this.module;
      case "set-current-module": {
        const before = this.module;
        this.setModule(known(args[0] as Value));
        return before;
      }
      case "conserve-mem":
        return VOID;
      case "release-mem":
        return 0;
      case "get-fact-duplication":
        return this.wm.duplication ? TRUE : FALSE;
      case "set-fact-duplication": {
        const before = this.wm.duplication;
        this.wm.duplication = args[0] !== FALSE;
        return before ? TRUE : FALSE;
      }
      case "get-strategy":
        return this.agenda.strategy;
      case "set-strategy": {
        const s = args[0];
        if (!isStrategy(s)) {
          throw rulesRuntimeError(`set-strategy expects one of ${STRATEGIES.join(", ")}`, {
            clips:
              "[ARGACCES5] Function set-strategy expected argument #1 to be of type symbol with value depth, breadth, lex, mea, complexity, simplicity, or random",
          });
        }
        return this.agenda.setStrategy(s);
      }
      default:
        return (
          introspectionCommand(this.introspection, name, args) ??
          genericCommand(this.genericHost, name, args) ??
          this.switchCommand(name, args) ??
          this.randomNumbers.command(name, args) ??
          handlerCommand(this.objects, this.onPrint, name, args) ??
          fileFunction(name, args, this.onPrint, (c, local) => this.saveClass(c, local))
        );
    }
  }

  // ── evaluation host ─────────────────────────────────────────────────────────────────────

  /** Evaluates a top-level command form (batch runner). */
  /**
   * Evaluates every dynamic salience again and re-places the activations whose salience changed
   * (every-cycle evaluation before each firing, and refresh-agenda).
   */
  private refreshSaliences(module: string | null = null): void {
    for (const a of module === null ? this.agenda.list() : this.agenda.listModule(module)) {
      const dynamic = a.rule.dynamicSalience;
      if (!dynamic) continue;
      const now = dynamic();
      if (now === a.salience) continue;
      this.agenda.remove(a);
      a.salience = now;
      this.agenda.add(a);
    }
  }

  /** COOL's part of a snapshot. */
  private objectState(): {
    instances: { name: string; cls: string; tag: number; slots: [string, Value][] }[];
    gensym: number;
    heldGensyms: string[];
    conservationClasses: string[];
    conservation: boolean;
  } {
    return {
      instances: this.objects.saved(),
      gensym: this.objects.gensymCounter,
      heldGensyms: [...this.objects.heldGensyms],
      conservationClasses: this.objects.conservationClasses(),
      conservation: this.objects.defaultsMode === "conservation",
    };
  }

  /** `(eval "expr")` evaluates the text; `(build "(defrule …)")` defines the construct. */
  private evalOrBuild(fn: string, text: Value): Value {
    if (!isString(text) && typeof text !== "string") {
      throw rulesRuntimeError(`${fn} expects a string`, {
        clips: `[ARGACCES5] Function ${fn} expected argument #1 to be of type symbol or string`,
      });
    }
    const forms = readForms(typeof text === "string" ? text : text.value);
    const form = forms[0];
    if (forms.length !== 1 || form === undefined) {
      throw rulesRuntimeError(`${fn} expects exactly one form, not ${forms.length}`);
    }
    if (fn === "build") {
      const head = form.type === "list" && form.items[0]?.type === "atom" ? form.items[0].text : "";
      if (!CONSTRUCT_NAMES.has(head)) return FALSE;
      const module = this.module;
      try {
        this.atomically(() => this.defineConstruct(form as SList));
      } catch (e) {
        // CLIPS echoes a built construct that fails as it echoes one in a file, and build
        // gives FALSE: what called it goes on.
        const error = withEcho(e, form as SList, this.module);
        if (!isKeelError(error) || typeof error.details.clips !== "string") throw error;
        this.onPrint(clipsMessageText(error.details.clips));
        this.forgetFailedRedefinition(form as SList, module);
        return FALSE;
      }
      return TRUE;
    }
    if (form.type === "atom") {
      // `$?*name*` is a global's expansion: evalTopLevel reads it (an expand$ out of a call).
      const mfGlobal = form.kind === "mfvar" && /^\*.+\*$/.test(form.text);
      if ((form.kind === "sfvar" || form.kind === "mfvar") && !mfGlobal) {
        // eval sees no variables of its caller, as in CLIPS.
        throw rulesRuntimeError(`variable ?${form.text} is not bound (eval)`, {
          clips: "[STRNGFUN2] Some variables could not be accessed by the eval function.",
        });
      }
      if (form.kind !== "gvar" && !mfGlobal) return form.value;
    }
    if (readsOuterVariables(form)) {
      throw rulesRuntimeError("eval cannot read the variables of its caller", {
        clips: "[STRNGFUN2] Some variables could not be accessed by the eval function.",
      });
    }
    return this.evalTopLevel(form, new Map());
  }

  /**
   * `(check-syntax "text")`: FALSE when the construct or call parses, else what CLIPS would
   * have printed (its message and a construct's `ERROR:` echo) and FALSE, as a multifield;
   * nothing is defined or run (a construct that parses is rolled back).
   */
  private checkSyntax(text: Value): Value {
    if (!isString(text)) {
      throw rulesRuntimeError("check-syntax expects a string", {
        clips: "[ARGACCES5] Function check-syntax expected argument #1 to be of type string",
      });
    }
    if (!text.value.trim().startsWith("(")) return "MISSING-LEFT-PARENTHESIS";
    let forms: SNode[];
    try {
      forms = readForms(text.value);
    } catch {
      return [
        new ClipsString("\n[EXPRNPSR2] Expected a constant, variable, or expression.\n"),
        FALSE,
      ];
    }
    const form = forms[0];
    if (forms.length !== 1 || form === undefined || form.type !== "list") {
      return "EXTRANEOUS-INPUT-AFTER-LAST-PARENTHESIS";
    }
    const head = form.items[0]?.type === "atom" ? form.items[0].text : "";
    const parsed = new Error("parsed");
    // Checking makes no implied deftemplates (CLIPS's check-syntax mode).
    this.checkingSyntax = true;
    try {
      if (CONSTRUCT_NAMES.has(head)) {
        this.atomically(() => {
          // The section alone undoes only rules, templates and deffacts; the other constructs
          // roll back through a snapshot (which keeps no logical support: see docs/rules.md).
          if (!SECTION_UNDOES.has(head)) this.beforeReplacing();
          // Without its text recorded: nothing the section would have to forget.
          this.defineConstructKind(form);
          throw parsed;
        });
      } else {
        const ctx = this.parseContext();
        ctx.construct = undefined;
        compileExpr(parseExpr(form, ctx), { resolve: () => null, rhs: true });
      }
    } catch (e) {
      if (e === parsed) return FALSE;
      const failure = CONSTRUCT_NAMES.has(head) ? withEcho(e, form, this.module) : e;
      if (!isKeelError(failure) || typeof failure.details.clips !== "string") throw e;
      return [new ClipsString(clipsMessageText(failure.details.clips)), FALSE];
    } finally {
      this.checkingSyntax = false;
    }
    return FALSE;
  }

  evalTopLevel(form: SNode, rhs: Map<string, Value>): Value {
    this.topForms.push(form);
    try {
      return this.evalForm(form, rhs);
    } finally {
      this.topForms.pop();
    }
  }

  /**
   * Whether a command being run calls `name`: CLIPS installs a command's expression while it
   * runs, so the deffunctions and generics it calls cannot be deleted meanwhile.
   */
  private calledNow(key: string): boolean {
    return this.topForms.some((f) => this.callsKey(f, key, this.module));
  }

  /**
   * Whether deffunction `key` is running, called by the command being run, by a method or by a
   * message-handler.
   */
  private functionBusy(key: string): boolean {
    return (
      this.procs.running(key) ||
      this.calledNow(key) ||
      this.calledByMethods(key) ||
      this.calledByHandlers(key)
    );
  }

  /** Whether a message-handler's body calls the deffunction or generic `key` (CLIPS holds it). */
  private calledByHandlers(key: string): boolean {
    return this.objects.handlerCode().some((c) => this.callsKey(c.form, key, c.module));
  }

  /**
   * Whether a defmethod's body or restrictions call `key` (CLIPS then keeps a deffunction or
   * generic); the methods of generic `except` do not count (a generic calling itself).
   */
  private calledByMethods(key: string, except?: string): boolean {
    for (const g of this.generics.keys()) {
      if (g === except) continue;
      for (const { index } of this.generics.describe(g) ?? []) {
        const form = this.generics.methodForm(g, index);
        if (form && this.callsKey(form, key, keyModule(g))) return true;
      }
    }
    return false;
  }

  /**
   * Whether `form`, code of `module`, calls the deffunction or generic function keyed `key`
   * (module-scope.ts): as `MOD::name`, or by a bare name that module resolves to it.
   */
  private callsKey(form: SNode, key: string, module: string): boolean {
    const name = bareName(key);
    if (callsName(form, `${keyModule(key)}::${name}`)) return true;
    return callsName(form, name) && this.functionKey(name, module) === key;
  }

  private evalForm(form: SNode, rhs: Map<string, Value>): Value {
    const ctx = this.parseContext();
    // A command belongs to no construct: the last construct parsed must not name its errors.
    ctx.construct = undefined;
    const expr = parseExpr(form, ctx);
    checkCommandContext(expr);
    const fn = compileExpr(expr, { resolve: () => null, rhs: true });
    this.deadline = Date.now() + this.limits.maxRunMs;
    try {
      return fn({ tok: null, local: null, rhs, host: this.evalHost });
    } catch (signal) {
      if (signal instanceof ReturnSignal) return signal.value;
      if (signal instanceof BreakSignal) return FALSE;
      throw signal;
    } finally {
      this.deadline = Number.POSITIVE_INFINITY;
    }
  }
}

/** Whether `form` holds a call of `name` (a list headed by it). */
function callsName(form: SNode, name: string): boolean {
  if (form.type !== "list") return false;
  const head = form.items[0];
  if (head?.type === "atom" && head.text === name) return true;
  return form.items.some((n) => callsName(n, name));
}

/** The rule that fired most often among `fired` (the one that does not settle), if any. */
/** A construct error's CLIPS message followed by CLIPS's `ERROR:` echo of the construct. */
/** The constructs an atomic section's own roll-back removes (see rollBack). */
/** The construct kinds whose names are per module (the others are one namespace yet). */
/** The construct kinds a module can export and import (a defmethod's is its generic's). */
const PORTABLE: ReadonlySet<string> = new Set([
  "deftemplate",
  "deffunction",
  "defgeneric",
  "defclass",
]);

const PER_MODULE: ReadonlySet<string> = new Set([
  "defclass",
  "deffacts",
  "deffunction",
  "defgeneric",
  "definstances",
  "defglobal",
  "defmodule",
  "defrule",
  "deftemplate",
]);

const SECTION_UNDOES: ReadonlySet<string> = new Set(["defrule", "deftemplate", "deffacts"]);

function withEcho(error: unknown, form: SList, module: string): unknown {
  if (!isKeelError(error) || typeof error.details.clips !== "string") return error;
  const { line, column } = error.details;
  const pos = typeof line === "number" && typeof column === "number" ? { line, column } : undefined;
  const echo = errorEcho(
    form,
    error.details.clips,
    pos,
    module,
    echoMode(error.details),
    echoExtras(error.details),
  );
  if (echo !== null) error.details.clips = `${error.details.clips}\n${echo.slice(0, -1)}`;
  return error;
}

function mostFired(fired: readonly Firing[]): string | undefined {
  const counts = new Map<string, number>();
  let best: string | undefined;
  let bestCount = 0;
  for (const { rule } of fired) {
    const n = (counts.get(rule) ?? 0) + 1;
    counts.set(rule, n);
    if (n > bestCount) {
      best = rule;
      bestCount = n;
    }
  }
  return best;
}

/** The partial match of a rule's first `logical` CEs: the activation's ancestor covering them. */
function logicalToken(t: Token, logical: number): Token {
  let x = t;
  while (x.depth > logical && x.parent) x = x.parent;
  return x;
}

/** The constructs load() and the batch runner define. */
export const CONSTRUCT_NAMES: ReadonlySet<string> = new Set([
  "deftemplate",
  "deffacts",
  "defrule",
  "deffunction",
  "defglobal",
  "defmodule",
  "defclass",
  "defmessage-handler",
  "definstances",
  "defgeneric",
  "defmethod",
]);

export { activationFacts, factLine, isMultifield, TRUE };

/** An open atomic section: what it added, and what a failure puts back. */
/** The constructs CLIPS deletes once a redefinition has read the name (the others it keeps). */
const DELETED_ON_REDEFINE: ReadonlySet<string> = new Set([
  "defrule",
  "deftemplate",
  "deffacts",
  "definstances",
]);

interface Section {
  readonly added: Added[];
  /** The implied deftemplates it made (`MODULE::name`), forgotten when it is undone. */
  readonly implied: string[];
  /** Names of the rules it added (replacing one of those needs no snapshot). */
  readonly rules: Set<string>;
  readonly clock: number;
  readonly output: string;
  /** The state before the section, taken once it replaces something it cannot simply undo. */
  before: EngineSnapshot | null;
}

/** The module a construct goes to: its name's `MOD::` prefix (a defglobal's module word), else `current`. */
function constructModule(form: SList, current: string): string {
  const node = form.items[1];
  if (node?.type !== "atom" || node.kind !== "symbol") return current;
  const head = form.items[0];
  if (head?.type === "atom" && head.text === "defglobal") return node.text;
  const at = node.text.indexOf("::");
  return at > 0 ? node.text.slice(0, at) : current;
}

/** The name of a fact's deftemplate (implied or not), as `(watch facts NAME)` names it. */
function factTemplateName(fact: Fact): string {
  return fact.template?.name ?? bareName(fact.relation);
}
