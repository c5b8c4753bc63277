/**
 * COOL, CLIPS's object language (Basic Programming Guide, section 9), procedural part: classes
 * with multiple inheritance, instances, message passing with before/after/around/primary
 * handlers, slot accessors and definstances. Object patterns on a rule's left-hand side are not
 * matched (docs/rules.md).
 */
import { isKeelError } from "../core/index.js";
import type {
  ClassSlotAst,
  ClassSlotFacets,
  DefclassAst,
  Expr,
  HandlerAst,
  SlotConstraintFacets,
} from "./ast.js";
import {
  clipsMessageText,
  evaluationErrorHalt,
  haltedIn,
  takeEvaluationError,
  withClipsLine,
} from "./clips-messages.js";
import { ReturnSignal } from "./control.js";
import { inheritFlag } from "./cool-args.js";
import {
  checkedSlot,
  compositeConstraints,
  defaultViolation,
  storedViolation,
  writeViolation,
} from "./cool-constraints.js";
import { slotFunction } from "./cool-slot-functions.js";
import { browseClasses, describeClass } from "./describe-class.js";
import { rulesLoadError, rulesRuntimeError } from "./errors.js";
import { evaluationDepth, stepIn, stepOut } from "./eval-depth.js";
import {
  type Compiled,
  compileExpr,
  type EvalHost,
  type Frame,
  type SelfSlotAccess,
  type SlotOverride,
  slotValue,
} from "./evaluate.js";
import { typeError } from "./function-args.js";
import { type InstancesHost, instancesCommand } from "./instances-command.js";
import { constructKey, keyModule, type ModuleScope, ONE_MODULE } from "./module-scope.js";
import { ObjectTemplate } from "./object-template.js";
import { previewText } from "./preview-send.js";
import type { SNode } from "./reader.js";
import { facetsConflict } from "./slot-constraints.js";
import type { SourcePos } from "./source-pos.js";
import { SYSTEM_CLASS_NAMES } from "./system-classes.js";
import {
  type Atom,
  DUMMY_INSTANCE,
  FALSE,
  float,
  formatValue,
  type InstanceName,
  type InstanceRef,
  instanceName,
  isFloat,
  isInstanceName,
  isInstanceRef,
  isInteger,
  isMultifield,
  isString,
  isSymbol,
  NIL,
  numberOf,
  TRUE,
  type Value,
  VOID,
} from "./values.js";
import { derivedDefault } from "./working-memory.js";

/** A slot of a class, after inheritance. */
export interface ClassSlot {
  readonly name: string;
  readonly multi: boolean;
  /** Static default (computed once), or a dynamic one (per instance). */
  readonly value: Value;
  readonly dynamic: Compiled | null;
  readonly read: boolean;
  readonly write: boolean;
  /** `(default ?NONE)`: make-instance and initialize-instance must give it a value. */
  readonly required: boolean;
  /** `(visibility public)`: handlers of subclasses may use `?self:slot`. */
  readonly public: boolean;
  /** The class that defines it. */
  readonly owner: string;
  /** The classes its facets come from, most general first (more than one: composite). */
  readonly sources: readonly string[];
  /** Its facets, a composite slot's completed from the definition it inherits. */
  readonly facets: ClassSlotFacets;
  /** The accessors it has (after the class defaults mode and read-only). */
  readonly accessors: "read" | "write" | "read-write" | "none";
  /** Shared storage: one value for every instance of the classes that have this slot. */
  readonly shared: { value: Value } | null;
}

type HandlerType = "primary" | "before" | "after" | "around";

interface Handler {
  readonly cls: ClassDef;
  readonly name: string;
  readonly type: HandlerType;
  /** `self`: an instance, or any other value a message was sent to (its primitive class's handlers). */
  readonly call: (self: Value, args: Value[]) => Value;
  /** The text ppdefmessage-handler prints (a defined handler's; none for the system's). */
  readonly text?: string;
  /** A defined handler's form and the module it was read in (what its body calls is in use). */
  readonly code?: HandlerCode;
}

/** A defined message-handler's form and the module its names were resolved from. */
export interface HandlerCode {
  readonly form: SNode;
  readonly module: string;
}

/** A make-instance's slot overrides, or how to evaluate them (once the instance exists). */
type Overrides = readonly SlotOverride[] | (() => readonly SlotOverride[]);

/** A system handler, which only instances reach. */
type InstanceHandler = Omit<Handler, "call"> & {
  readonly call: (self: Instance, args: Value[]) => Value;
};

/** A message-handler as the introspection functions list it. */
export interface HandlerInfo {
  readonly cls: string;
  /** The class's name as listings print it (see {@link ObjectSystem.label}). */
  readonly label: string;
  readonly name: string;
  readonly type: HandlerType;
  /** The pretty-printed definition; null for slot accessors and USER's own handlers. */
  readonly text: string | null;
}

/** The handlers CLIPS 6.30's USER class defines (all primary), in its order. */
const USER_HANDLERS = [
  "init",
  "delete",
  "create",
  "print",
  "direct-modify",
  "message-modify",
  "direct-duplicate",
  "message-duplicate",
];

/** The system handlers modify-instance and duplicate-instance run as (CLIPS's halt names them). */
const DIRECT_MODIFY = "message-handler direct-modify primary in class USER";
const DIRECT_DUPLICATE = "message-handler direct-duplicate primary in class USER";
const MESSAGE_MODIFY = "message-handler message-modify primary in class USER";
const MESSAGE_DUPLICATE = "message-handler message-duplicate primary in class USER";

/** CLIPS's [INSFUN3] for a modify or duplicate naming a slot the instance lacks. */
function noSuchSlot(slot: string, fn: string): Error {
  return rulesRuntimeError(`no slot ${slot} in ${fn}`, {
    clips: `[INSFUN3] No such slot ${slot} in function ${fn}.`,
  });
}

/** A class: its direct superclasses, precedence list, slots and message handlers. */
export interface ClassDef {
  readonly name: string;
  /** The module that defines it (the system classes are MAIN's and seen everywhere). */
  readonly module: string;
  readonly supers: readonly ClassDef[];
  readonly abstract: boolean;
  /** Matched by object patterns (`(pattern-match reactive)`, the default). */
  readonly reactive: boolean;
  /** When it was defined ({@link lastClassSerial}): rules defined before it do not match it. */
  readonly serial: number;
  readonly ownSlots: readonly ClassSlot[];
  /** The class precedence list: this class first, OBJECT last. */
  cpl: ClassDef[];
  /** Every slot, inherited ones first (CLIPS's order). */
  slots: ClassSlot[];
  readonly handlers: Map<string, Handler>;
  readonly subclasses: ClassDef[];
  /** Instances of exactly this class, oldest first. */
  readonly instances: Instance[];
  /** Defined in the conservation class defaults mode. */
  readonly conservation: boolean;
}

/** One instance of a user class. */
export class Instance implements InstanceRef {
  deleted = false;
  /** Its fact's index in the Rete (object-match.ts); 0 until first matched. */
  tag = 0;
  readonly slots = new Map<string, Value>();
  /**
   * While it is being made or initialized: the slots given a value so far (the init message's
   * init-slots leaves those and places every other slot's default). Null once initialized.
   */
  overridden: Set<string> | null = null;
  /** While message-modify-instance puts its slots: those changed, matched once it ends. */
  modifying: Set<string> | null = null;
  constructor(
    readonly instanceName: InstanceName,
    readonly cls: ClassDef,
  ) {}
}

/** Raised by a handler's or method's failure to find the next one (messages as CLIPS's). */
function noPrimary(msg: string, target: string): Error {
  return rulesRuntimeError(`no primary message-handler for ${msg} applies to ${target}`, {
    clips: `[MSGFUN1] No applicable primary message-handlers found for ${msg}.`,
  });
}

type HandlerKinds = "arounds" | "befores" | "primaries" | "afters";

interface Dispatch {
  /** An instance, or the value a message to a primitive class (INTEGER, …) was sent to. */
  readonly self: Value;
  readonly args: Value[];
  readonly arounds: Handler[];
  readonly befores: Handler[];
  readonly primaries: Handler[];
  readonly afters: Handler[];
  /** Next around (index into arounds), then the core. */
  around: number;
  primary: number;
}

/**
 * CLIPS 6.30's system classes, each with its direct superclasses, in the order they are linked
 * (which orders each class's subclasses); OBJECT, USER and INITIAL-OBJECT are the only ones
 * instances can belong to. The primitive classes type the values generic functions dispatch on.
 */
const SYSTEM_HIERARCHY: readonly (readonly [string, readonly string[]])[] = [
  ["OBJECT", []],
  ["PRIMITIVE", ["OBJECT"]],
  ["NUMBER", ["PRIMITIVE"]],
  ["INTEGER", ["NUMBER"]],
  ["FLOAT", ["NUMBER"]],
  ["LEXEME", ["PRIMITIVE"]],
  ["SYMBOL", ["LEXEME"]],
  ["STRING", ["LEXEME"]],
  ["MULTIFIELD", ["PRIMITIVE"]],
  ["ADDRESS", ["PRIMITIVE"]],
  ["EXTERNAL-ADDRESS", ["ADDRESS"]],
  ["FACT-ADDRESS", ["ADDRESS"]],
  ["INSTANCE", ["PRIMITIVE"]],
  ["INSTANCE-ADDRESS", ["INSTANCE", "ADDRESS"]],
  ["INSTANCE-NAME", ["INSTANCE"]],
  ["USER", ["OBJECT"]],
  ["INITIAL-OBJECT", ["USER"]],
];

const SYSTEM_LISTING = SYSTEM_CLASS_NAMES;
/** The names gensym makes (see ObjectSystem.heldGensyms). */
const GENSYM = /^gen\d+$/;

const SYSTEM_CLASSES = SYSTEM_LISTING;

let classSerial = 0;

/** The serial of the newest class defined so far (in any engine). */
export function lastClassSerial(): number {
  return classSerial;
}

/**
 * Told when an instance starts, changes or stops being matched by object patterns: once made
 * (after its init message), after slots change (the names of those slots), and when deleted.
 */
export interface InstanceWatcher {
  made(inst: Instance): void;
  changed(inst: Instance, slots: readonly string[]): void;
  gone(inst: Instance): void;
}

/** The classes and instances of one engine. */
export class ObjectSystem {
  private readonly classes = new Map<string, ClassDef>();
  /** Every live instance by name, in creation order. */
  private readonly byName = new Map<string, Instance>();
  private readonly definstances = new Map<
    string,
    { name: Compiled | null; cls: string; slots: { name: string; values: Compiled[] }[] }[]
  >();
  private readonly stack: Dispatch[] = [];
  /** gensym's counter, shared with generated instance names. */
  gensymCounter = 1;
  /**
   * genN instance names CLIPS's symbol table keeps after their instance is gone: names made
   * outside a rule's actions, and names alive at a (clear) or (reset). Batch mode never collects
   * symbols released at the top level, so gensym* and an unnamed make-instance skip these names
   * even after (setgen 1).
   */
  readonly heldGensyms = new Set<string>();
  /** False while a rule's actions run (set by the engine); see heldGensyms. */
  topLevel = true;
  /** The layout object patterns match instances by (kept across clear: it only grows). */
  readonly template = new ObjectTemplate();
  watcher: InstanceWatcher | null = null;
  /** Whether `(watch instances)` / `(watch slots)` is on (the engine's watch settings). */
  watching: (item: "instances" | "slots" | "messages" | "message-handlers") => boolean = () =>
    false;
  /** Whether put- checks slot values against their constraints (dynamic-constraint-checking). */
  constraintChecking: () => boolean = () => false;
  /** Whether slot defaults are checked when a class is defined (static-constraint-checking). */
  staticChecking: () => boolean = () => true;

  /** How class names resolve through the defmodules (the engine's). */
  scope: ModuleScope = ONE_MODULE;

  constructor(private readonly host: () => EvalHost) {
    this.clear();
  }

  /**
   * The class a typed name stands for from module `from` (the current one by default): a
   * system class anywhere, `MOD::NAME` that module's, a bare name the module's own or one it
   * imports (CLIPS's LookupDefclassByMdlOrScope).
   */
  private lookup(typed: string, from?: string): ClassDef | undefined {
    const system = this.classes.get(typed);
    if (system && SYSTEM_CLASSES.includes(typed)) return system;
    return this.classes.get(this.scope.key("defclass", typed, (k) => this.classes.has(k), from));
  }

  /**
   * CLIPS's CheckAllowedClassesConstraint (an `allowed-classes` facet): whether an instance name
   * or address designates an instance of one of `classes` (each found from the current module)
   * or of a subclass; a name of no instance fits none.
   */
  readonly ofClasses = (v: Value, classes: readonly string[]): boolean => {
    const inst = v instanceof Instance ? v : this.find(v);
    if (inst === null) return false;
    return classes.some((name) => {
      const c = this.lookup(name);
      return c !== undefined && inst.cls.cpl.includes(c);
    });
  };

  /** Whether module `from` sees the class (its own, imported, or a system class). */
  sees(cls: ClassDef, from: string): boolean {
    return SYSTEM_CLASSES.includes(cls.name) || this.scope.sees("defclass", keyOf(cls), from);
  }

  /** A class's name as CLIPS prints it: `MOD::NAME` outside its module (PrintClassName). */
  label(cls: ClassDef, from = this.scope.current()): string {
    return cls.module === from || SYSTEM_CLASSES.includes(cls.name)
      ? cls.name
      : `${cls.module}::${cls.name}`;
  }

  /** `(clear)`: the system classes only, no instances. */
  clear(): void {
    this.holdGensyms();
    for (const i of this.byName.values()) i.deleted = true;
    this.byName.clear();
    this.classes.clear();
    this.definstances.clear();
    this.initialObject = true;
    for (const [name, supers] of SYSTEM_HIERARCHY) {
      const direct = supers.map((n) => this.classes.get(n) as ClassDef);
      // Only OBJECT, USER and INITIAL-OBJECT are matched by object patterns (class-reactivep).
      const user = name === "OBJECT" || name === "USER" || name === "INITIAL-OBJECT";
      this.newClass(name, direct, name !== "INITIAL-OBJECT", user, [], { module: "MAIN" });
    }
    const system = [...this.classes.values()];
    this.classes.clear();
    for (const name of SYSTEM_LISTING) {
      this.classes.set(name, system.find((c) => c.name === name) as ClassDef);
    }
  }

  /** Every class in definition order, the system classes first (list-defclasses). */
  classList(): ClassDef[] {
    return [...this.classes.values()];
  }

  /** The classes `module` defines, in definition order (MAIN's: the system classes first). */
  classesOf(module: string): ClassDef[] {
    return this.classList().filter((c) => c.module === module);
  }

  isSystemClass(name: string): boolean {
    return SYSTEM_CLASSES.includes(name);
  }

  /**
   * Deletes a class and, first, its subclasses (undefclass): each leaves its superclasses'
   * subclass lists. Those deleted as `MOD::NAME`, subclasses first.
   */
  removeClass(cls: ClassDef): string[] {
    const removed = [...cls.subclasses].flatMap((s) => this.removeClass(s));
    if (!this.classes.has(keyOf(cls))) return removed;
    for (const s of cls.supers) s.subclasses.splice(s.subclasses.indexOf(cls), 1);
    this.classes.delete(keyOf(cls));
    return [...removed, `${cls.module}::${cls.name}`];
  }

  /** CLIPS 6.30 makes [initial-object] on clear, as it asserts (initial-fact). */
  makeInitialObject(): void {
    this.makeInstance(instanceName("initial-object"), "INITIAL-OBJECT", []);
  }

  /** How many instances exist ([initial-object] included). */
  get count(): number {
    return this.byName.size;
  }

  /** Whether a typed class name stands for a class from module `from` (see lookup). */
  hasClass(name: string, from?: string): boolean {
    return this.lookup(name, from) !== undefined;
  }

  classNamed(name: string, from?: string): ClassDef | undefined {
    return this.lookup(name, from);
  }

  private newClass(
    name: string,
    supers: ClassDef[],
    abstract: boolean,
    reactive: boolean,
    own: ClassSlot[],
    how: {
      module: string;
      isaPos?: SourcePos | undefined;
      /** The class being redefined (its precedence list catches a loop through it). */
      old?: ClassDef | undefined;
      conservation?: boolean;
    },
  ): ClassDef {
    const { module, isaPos, old, conservation = false } = how;
    const cls: ClassDef = {
      conservation,
      name,
      module,
      supers,
      abstract,
      reactive,
      serial: ++classSerial,
      ownSlots: own,
      cpl: [],
      slots: [],
      handlers: new Map(),
      subclasses: [],
      instances: [],
    };
    cls.cpl = precedenceList(cls, isaPos, old);
    // Inherited slots first; a slot a more specific class defines again moves to its place.
    const slots: ClassSlot[] = [];
    for (let i = cls.cpl.length - 1; i >= 0; i--) {
      for (const s of (cls.cpl[i] as ClassDef).ownSlots) {
        // `(propagation no-inherit)`: the slot stays with the class that defines it.
        if (i > 0 && s.facets.propagation === "no-inherit") continue;
        const at = slots.findIndex((x) => x.name === s.name);
        if (at >= 0) slots.splice(at, 1);
        slots.push(s);
      }
    }
    cls.slots = slots;
    for (const s of own) this.template.add(s.name, s.multi);
    for (const s of supers) s.subclasses.push(cls);
    this.classes.set(keyOf(cls), cls);
    return cls;
  }

  /** `(defclass …)` in `module` (the class's own). */
  defineClass(ast: DefclassAst, module = "MAIN"): void {
    if (SYSTEM_CLASSES.includes(ast.name)) {
      throw rulesRuntimeError(`class ${ast.name} is a system class and cannot be redefined`);
    }
    const supers = ast.supers.map((n) => {
      const c = this.lookup(n, module);
      if (!c) {
        throw rulesRuntimeError(`class ${n} is not defined (in defclass ${ast.name})`, {
          clips: `[PRNTUTIL1] Unable to find class ${n}.`,
        });
      }
      return c;
    });
    const old = this.classes.get(constructKey(module, ast.name));
    // Instances of a subclass hold the class too.
    const inUse = (c: ClassDef): boolean => c.instances.length > 0 || c.subclasses.some(inUse);
    if (old && inUse(old)) {
      throw rulesLoadError(ast.isaPos, `class ${ast.name} has instances: it cannot be redefined`, {
        construct: `defclass ${ast.name}`,
        clips: `[CLASSPSR3] ${ast.name} class cannot be redefined while\n    outstanding references to it still exist.`,
        echoOpen: true,
        hint: "Delete its instances first (unmake-instance).",
      });
    }
    if (old) {
      for (const s of old.supers) s.subclasses.splice(s.subclasses.indexOf(old), 1);
    }
    const construct = `defclass ${ast.name}`;
    const conservation = this.modeOf(ast.name) === "conservation";
    const own = ast.slots.map((s) => {
      try {
        return this.classSlot(ast.name, s, supers, construct, conservation);
      } catch (e) {
        // CLIPS computes a slot's default at the slot's `)`: the echo stops there.
        if (isKeelError(e)) e.details.echoSlot ??= s.name;
        throw e;
      }
    });
    // Without a role, a class takes its first superclass's (the system classes' excepted).
    const first = supers[0];
    const fromUser = first !== undefined && !SYSTEM_CLASSES.includes(first.name);
    // In conservation mode a class is abstract and non-reactive unless it says otherwise.
    const abstract = ast.abstract ?? (fromUser ? first.abstract : conservation);
    // An abstract class is never reactive (no direct instances), and passes that on as it
    // passes its role: CLIPS 6.30's class-reactivep of a class below an abstract one is FALSE.
    const reactive = (ast.reactive ?? (fromUser ? first.reactive : !conservation)) && !abstract;
    try {
      this.newClass(ast.name, supers, abstract, reactive, own, {
        module,
        isaPos: ast.isaPos,
        old,
        conservation,
      });
    } catch (e) {
      // The old class stays, linked to its superclasses again.
      if (old) for (const s of old.supers) s.subclasses.push(old);
      throw e;
    }
    // A class defined again starts without message-handlers, as in CLIPS 6.30.
  }

  /**
   * One slot a defclass defines. A composite slot (`(source composite)`) takes every facet it
   * does not write from the nearest definition it inherits; a read-only slot with a static default is shared, as in CLIPS 6.30.
   */
  private classSlot(
    clsName: string,
    s: ClassSlotAst,
    supers: readonly ClassDef[],
    construct: string,
    conservation: boolean,
  ): ClassSlot {
    let base: ClassSlot | undefined;
    if (s.facets.source === "composite") {
      // The nearest definition a subclass inherits (a no-inherit one is passed over).
      for (const c of supers.flatMap((sup) => sup.cpl)) {
        base = c.ownSlots.find((x) => x.name === s.name && x.facets.propagation === "inherit");
        if (base) break;
      }
    }
    const given = (facet: string) => base === undefined || s.facets.given.includes(facet);
    const facets: ClassSlotFacets = base
      ? {
          ...s.facets,
          visibility: given("visibility") ? s.facets.visibility : base.facets.visibility,
          storage: given("storage") ? s.facets.storage : base.facets.storage,
          reactive: given("pattern-match") ? s.facets.reactive : base.facets.reactive,
          accessMode: given("access") ? s.facets.accessMode : base.facets.accessMode,
          createAccessor: given("create-accessor")
            ? s.facets.createAccessor
            : base.facets.createAccessor,
          overrideMessage: given("override-message")
            ? s.facets.overrideMessage
            : base.facets.overrideMessage,
          constraints: compositeConstraints(
            s.facets.constraints,
            base.facets.constraints,
            s.facets.given,
          ),
        }
      : s.facets;
    // CLIPS checks the merged facets of a composite slot for conflicts as it checks a slot's own.
    const conflict = base ? facetsConflict(facets.constraints) : null;
    if (conflict !== null) {
      throw rulesRuntimeError(`slot ${s.name}'s type excludes its ${conflict} facet`, {
        clips: `[CSTRNPSR1] The type attribute conflicts with the ${conflict} attribute.`,
      });
    }
    const multi = given("field") ? s.multi : (base as ClassSlot).multi;
    const exprs = s.defaults.map((e) =>
      compileExpr(e, { resolve: () => null, rhs: true, construct }),
    );
    const compute = (f: Frame): Value => {
      const vals = exprs.map((c) => c(f));
      return multi ? flatten(vals) : vals.length === 0 ? NIL : slotValue(vals);
    };
    const frame = (): Frame => ({ tok: null, local: null, rhs: new Map(), host: this.host() });
    const ownDefault = given("default");
    const dynamic = ownDefault ? (s.dynamic ? compute : null) : (base as ClassSlot).dynamic;
    // A composite slot re-derives an inherited derived default from its merged constraints.
    const derivedBase =
      base !== undefined && !base.facets.given.includes("default") && base.dynamic === null;
    const value = !ownDefault
      ? derivedBase
        ? derivedSlotDefault(multi, facets.constraints)
        : (base as ClassSlot).value
      : s.dynamic
        ? NIL
        : s.defaults.length === 0
          ? derivedSlotDefault(multi, facets.constraints)
          : compute(frame());
    const print = (text: string) => this.host().print("t", text);
    if (ownDefault && !multi) singleDefaultCheck(s, value, print);
    const checked = checkedSlot(facets.constraints, multi, this.ofClasses);
    const broken =
      ownDefault && checked && (s.defaults.length > 0 || s.dynamic) && this.staticChecking()
        ? defaultViolation(checked, s.name, s.dynamic, value, s.defaults)
        : null;
    if (broken !== null) {
      // Printed here: this [CSTRNCHK1] has no blank line before it (PrintErrorID's printCR off).
      print(`${broken}\n`);
      throw rulesRuntimeError(`the default of slot ${s.name} breaks its constraints`, {
        clips: "",
      });
    }
    let accessors = facets.createAccessor ?? (conservation ? "none" : "read-write");
    // A read-only slot has no put- accessor, whatever create-accessor asks (CLIPS 6.30).
    if (facets.accessMode === "read-only") {
      accessors = accessors === "read-write" ? "read" : accessors === "write" ? "none" : accessors;
    }
    const shared =
      facets.storage === "shared" || (facets.accessMode === "read-only" && dynamic === null);
    return {
      name: s.name,
      multi,
      value,
      dynamic,
      read: accessors === "read" || accessors === "read-write",
      write: accessors === "write" || accessors === "read-write",
      required: ownDefault ? s.required : (base as ClassSlot).required,
      public: facets.visibility === "public",
      owner: clsName,
      sources: base ? [...base.sources, clsName] : [clsName],
      facets: shared ? { ...facets, storage: "shared" } : facets,
      accessors,
      shared: shared ? { value } : null,
    };
  }

  /** The class defaults mode a class is defined in (a snapshot's, while one is restored). */
  private modeOf(cls: string): "convenience" | "conservation" {
    if (this.restoringModes) return this.restoringModes.has(cls) ? "conservation" : "convenience";
    return this.defaultsMode;
  }

  /** `(set-class-defaults-mode …)`: how classes defined from now on default their facets. */
  defaultsMode: "convenience" | "conservation" = "convenience";
  /** While a snapshot is restored: the classes it says were defined in conservation mode. */
  restoringModes: ReadonlySet<string> | null = null;

  /** The user classes defined in conservation mode (snapshots keep them). */
  conservationClasses(): string[] {
    return [...this.classes.values()].filter((c) => c.conservation).map((c) => c.name);
  }

  /**
   * A class's message-handlers in CLIPS's order: USER's own, or the slot accessors (get- and
   * put- for each slot the class defines, as its access allows) then those defined, oldest first.
   */
  handlerList(cls: ClassDef): HandlerInfo[] {
    const out: HandlerInfo[] = [];
    const add = (name: string, type: HandlerType, text: string | null) =>
      out.push({ cls: cls.name, label: this.label(cls), name, type, text });
    if (cls.name === "USER") for (const name of USER_HANDLERS) add(name, "primary", null);
    const defined = cls.handlers;
    for (const s of cls.ownSlots) {
      for (const [kind, ok] of [
        ["get", s.read],
        ["put", s.write],
      ] as const) {
        const name = `${kind}-${s.name}`;
        if (ok && !defined.has(`${name} primary`)) add(name, "primary", null);
      }
    }
    for (const h of defined.values()) add(h.name, h.type, h.text ?? null);
    return out;
  }

  /** `(defmessage-handler CLASS name [type] (?a…) action…)`; `text` is what ppdefmessage-handler prints. */
  defineHandler(ast: HandlerAst, text?: string, from?: string, code?: HandlerCode): void {
    const cls = this.lookup(ast.cls, from);
    if (!cls) {
      throw rulesRuntimeError(
        `class ${ast.cls} is not defined (in defmessage-handler ${ast.name})`,
        {
          clips: `[PRNTUTIL1] Unable to find class ${ast.cls}.`,
        },
      );
    }
    const construct = `defmessage-handler ${ast.cls} ${ast.name}`;
    if (ast.type === "primary" && this.isSystemHandler(cls, ast.name)) {
      throw rulesLoadError(
        ast.paramsPos,
        `${ast.name} is a system message-handler of ${cls.name}`,
        {
          construct,
          clips: "[MSGPSR3] System message-handlers may not be modified.",
          echoOpen: true,
          hint: "Define a before, after or around handler for it instead.",
        },
      );
    }
    const running = `${ast.name} ${ast.type} in class ${ast.cls}`;
    const selfSlot = (
      slot: string,
      write: boolean,
      pos: SourcePos,
      values?: readonly Expr[],
    ): SelfSlotAccess =>
      this.selfSlot(cls, slot, pos, construct, running, write ? (values ?? []) : null);
    // An unbound variable names the handler as CLIPS does ([PRCCODE5]).
    const procedure = `message-handler ${running}`;
    const body = ast.body.map((e) =>
      compileExpr(e, { resolve: () => null, rhs: true, construct, procedure, selfSlot }),
    );
    const { params, rest } = ast;
    const call = (self: Value, args: Value[]): Value => {
      if (rest === null ? args.length !== params.length : args.length < params.length) {
        throw rulesRuntimeError(
          `message-handler ${ast.name} expects ${params.length} argument(s)`,
          {
            clips: `[MSGFUN2] Message-handler ${ast.name} ${ast.type} in class ${ast.cls} expected ${rest === null ? "exactly" : "at least"} ${params.length} argument(s).`,
          },
        );
      }
      const vars = new Map<string, Value>([["self", self]]);
      for (let i = 0; i < params.length; i++) vars.set(params[i] as string, args[i] as Value);
      if (rest !== null) vars.set(rest, flatten(args.slice(params.length)));
      const frame: Frame = { tok: null, local: null, rhs: vars, host: this.host() };
      let last: Value = FALSE;
      // A handler's actions run in its class's module.
      const before = this.scope.enter(cls.module);
      try {
        for (const action of body) {
          last = action(frame);
          if (takeEvaluationError()) throw evaluationErrorHalt();
        }
      } catch (signal) {
        if (signal instanceof ReturnSignal) return signal.value;
        throw haltedIn(signal, `message-handler ${ast.name} ${ast.type} in class ${ast.cls}`);
      } finally {
        this.scope.leave(before);
      }
      return last;
    };
    const handler: Handler = {
      cls,
      name: ast.name,
      type: ast.type,
      call,
      ...(text === undefined ? {} : { text }),
      ...(code === undefined ? {} : { code }),
    };
    cls.handlers.set(`${ast.name} ${ast.type}`, handler);
  }

  /**
   * `?self:slot` in a handler of `cls`: the slot must be one of the class's, defined by it or
   * public; at run time it must still be that slot in the instance's class ([MSGPASS3] when a
   * subclass defines the slot again).
   */
  private selfSlot(
    cls: ClassDef,
    slot: string,
    pos: SourcePos,
    construct: string,
    handler: string,
    written: readonly Expr[] | null,
  ): SelfSlotAccess {
    const write = written !== null;
    const def = cls.slots.find((s) => s.name === slot);
    // CLIPS adds [PRCCODE3] when the reference is read (not bound).
    const undefinedVar = write
      ? ""
      : `\n[PRCCODE3] Undefined variable self:${slot} referenced in message-handler.`;
    if (!def) {
      throw rulesLoadError(pos, `class ${cls.name} has no slot ${slot} for ?self:${slot}`, {
        construct,
        clips: `[MSGPSR6] No such slot ${slot} in class ${cls.name} for ?self reference.${undefinedVar}`,
        echoWhole: true,
      });
    }
    if (!def.public && !cls.ownSlots.includes(def)) {
      const owner = cls.cpl.find((c) => c.ownSlots.includes(def))?.name ?? cls.name;
      throw rulesLoadError(pos, `slot ${slot} of class ${owner} is private to it`, {
        construct,
        clips: `[MSGFUN6] Private slot ${slot} of class ${owner} cannot be accessed directly\n   by handlers attached to class ${cls.name}${undefinedVar}`,
        echoWhole: true,
        hint: "Give the slot (visibility public), or send it a get-/put- message.",
      });
    }
    // The class that defines the slot, by name: a class defined again keeps its handlers.
    const owner = cls.cpl.find((c) => c.ownSlots.includes(def))?.name;
    const definer = (inst: Instance): string | undefined => {
      const s = inst.cls.slots.find((x) => x.name === slot);
      return s && inst.cls.cpl.find((c) => c.ownSlots.includes(s))?.name;
    };
    const check = (self: Value): Instance => {
      const inst = this.need(self, "slot access");
      if (inst.cls !== cls && definer(inst) !== owner) {
        throw rulesRuntimeError(
          `?self:${slot} of class ${cls.name} does not apply to [${inst.instanceName.name}]`,
          {
            clips: `[MSGPASS3] Static reference to slot ${slot} of class ${cls.name} does not apply to [${inst.instanceName.name}] of ${inst.cls.name}`,
          },
        );
      }
      return inst;
    };
    if (written !== null && this.staticChecking()) {
      // CLIPS checks a direct write's expressions against the slot's facets as it reads it.
      const broken = writeViolation(def.facets.constraints, def.multi, written, this.ofClasses);
      if (broken !== null) {
        // Printed here: this [CSTRNCHK1] has no blank line before it (PrintErrorID's printCR off).
        this.host().print(
          "t",
          `[CSTRNCHK1] Expression for slot ${slot} of class ${cls.name} found in direct slot write\n${broken.text}.\n`,
        );
        throw rulesLoadError(pos, `?self:${slot} is given a value that ${broken.text}`, {
          construct,
          clips: "",
          echoWhole: true,
        });
      }
    }
    return {
      get: (self) => check(self).slots.get(slot) as Value,
      set: (self, value) => {
        const inst = check(self);
        // With dynamic checking on; the handler's own halt line follows.
        this.checkStored(inst, def, def.multi ? flatten([value]) : value, handler, null);
        return this.setSlot(inst, slot, value);
      },
    };
  }

  /** USER's own handlers and a class's slot accessors: CLIPS lets no one redefine or delete them. */
  private isSystemHandler(cls: ClassDef, name: string): boolean {
    if (cls.name === "USER" && USER_HANDLERS.includes(name)) return true;
    return cls.ownSlots.some(
      (s) => (s.read && name === `get-${s.name}`) || (s.write && name === `put-${s.name}`),
    );
  }

  /** `(undefmessage-handler CLASS name [type])`, `*` for every name or every type. */
  undefineHandler(args: readonly Value[]): Value {
    const fn = "undefmessage-handler";
    // Class `*` is every class (unless one is named `*`).
    if (args[0] === "*" && !this.hasClass("*")) {
      const type = args[2] ?? "primary";
      for (const c of this.classes.values()) {
        // Only the classes with such a handler (the others are no error here).
        const has = [...c.handlers.values()].some(
          (h) => (args[1] === "*" || h.name === args[1]) && (type === "*" || h.type === type),
        );
        if (has) this.undefineHandler([c.name, ...args.slice(1)]);
      }
      return TRUE;
    }
    const cls = this.namedClass(args[0] as Value, fn);
    const name = args[1] as Value;
    if (!isSymbol(name)) throw typeError(fn, 2, "symbol");
    const type = args[2] ?? "primary";
    if (
      !isSymbol(type) ||
      (type !== "*" && !["primary", "before", "after", "around"].includes(type))
    ) {
      throw rulesRuntimeError(`${fn}: ${formatValue(type)} is not a message-handler type`, {
        clips: `[MSGFUN7] Unrecognized message-handler type in ${fn}.`,
      });
    }
    if ((type === "primary" || type === "*") && name !== "*" && this.isSystemHandler(cls, name)) {
      throw rulesRuntimeError(`${name} is a system message-handler of ${cls.name}`, {
        clips: "[MSGPSR3] System message-handlers may not be modified.",
      });
    }
    // Name `*` is every handler, unless the class has one named `*`.
    const every = name === "*" && ![...cls.handlers.values()].some((h) => h.name === "*");
    const doomed = [...cls.handlers].filter(
      ([, h]) => (every || h.name === name) && (type === "*" || h.type === type),
    );
    if (doomed.length === 0) {
      throw rulesRuntimeError(`no message-handler ${name} ${type} in class ${cls.name}`, {
        clips: `[MSGFUN8] Unable to delete message-handler(s) from class ${cls.name}.`,
      });
    }
    for (const [key] of doomed) cls.handlers.delete(key);
    return TRUE;
  }

  /** `(definstances name (inst of CLASS (slot v…)…)…)`: made on every reset. */
  defineInstances(
    name: string,
    specs: { name: Compiled | null; cls: string; slots: { name: string; values: Compiled[] }[] }[],
  ): void {
    this.definstances.set(name, specs);
  }

  /** The first half of `(reset)`: every instance deleted, oldest first. */
  removeAll(): void {
    this.holdGensyms();
    // CLIPS sends each instance the delete message (its handlers run, watch traces them).
    for (const i of [...this.byName.values()]) {
      if (!i.deleted) this.send(i, "delete", []);
      if (!i.deleted) this.remove(i);
    }
  }

  private holdGensyms(): void {
    for (const name of this.byName.keys()) if (GENSYM.test(name)) this.heldGensyms.add(name);
  }

  /** Whether MAIN's built-in initial-object definstances is there (undefinstances deletes it). */
  initialObject = true;

  /** Deletes a definstances (undefinstances). */
  forgetInstances(name: string): void {
    this.definstances.delete(name);
  }

  /** The definstances whose instances reset is making now (CLIPS will not redefine them). */
  private readonly makingInstances = new Set<string>();

  /** Whether reset is making the definstances `name`'s instances now. */
  instancesRunning(name: string): boolean {
    return this.makingInstances.has(name);
  }

  /**
   * Makes the initial object and the definstances' instances. The caller deleted the instances
   * first: those the globals' values made since stay, as in CLIPS.
   */
  reset(): void {
    if (this.initialObject) this.makeInitialObject();
    const f: Frame = { tok: null, local: null, rhs: new Map(), host: this.host() };
    // Module by module, each in definition order (CLIPS's DoForAllConstructs).
    const order = this.scope.modules();
    const rank = (key: string): number => order.indexOf(keyModule(key));
    const all = [...this.definstances].sort(([a], [b]) => rank(a) - rank(b));
    for (const [name, specs] of all) {
      this.makingInstances.add(name);
      try {
        for (const s of specs) {
          this.makeInstance(
            s.name ? s.name(f) : null,
            s.cls,
            s.slots.map((x) => ({ name: x.name, values: x.values.map((c) => c(f)) })),
          );
        }
      } finally {
        this.makingInstances.delete(name);
      }
    }
  }

  /** `(make-instance name of CLASS (slot v…)…)`: the new instance's name. */
  makeInstance(name: Value | null, clsName: Value, overrides: Overrides): Value {
    // CLIPS looks a class written as a symbol up when it reads the call, so that comes first;
    // the name is checked when the call runs, then a class given by an expression.
    const cls = isSymbol(clsName) ? this.lookup(clsName) : undefined;
    if (!cls && isSymbol(clsName)) {
      throw rulesRuntimeError(`class ${formatValue(clsName)} is not defined (make-instance)`, {
        clips: `[PRNTUTIL1] Unable to find class ${formatValue(clsName)}.`,
      });
    }
    if (cls?.abstract) {
      throw rulesRuntimeError(`class ${cls.name} is abstract: it cannot have instances`, {
        clips: `[INSMNGR3] Cannot create instances of abstract class ${cls.name}.`,
      });
    }
    if (name !== null && !isSymbol(name) && !isInstanceName(name)) {
      throw rulesRuntimeError(`an instance name must be a symbol, not ${formatValue(name)}`, {
        clips: "[INSMNGR1] Expected a valid name for new instance.",
      });
    }
    if (!cls) {
      throw rulesRuntimeError(`make-instance needs a class name, not ${formatValue(clsName)}`, {
        clips: "[INSMNGR2] Expected a valid class name for new instance.",
      });
    }
    // Only classes with a primary create handler (USER's, or one defined) can make instances.
    const creates = cls.cpl.some((c) => c.name === "USER" || c.handlers.has("create primary"));
    if (!creates) throw noPrimary("create", cls.name);
    const iname =
      name === null ? instanceName(this.gensymStar()) : ownName(toInstanceName(name), cls);
    const old = this.byName.get(iname.name);
    // Instance names are one namespace: one of a class of another module keeps its name.
    if (old && old.cls.module !== cls.module) {
      throw rulesRuntimeError(
        `instance name [${iname.name}] is in use in module ${old.cls.module}`,
        {
          clips: `[INSMNGR16] The instance name ${iname.name} is in use by an instance of class ${old.cls.name}.`,
        },
      );
    }
    if (old?.overridden) {
      // A slot override of an instance being made makes one of the same name.
      throw rulesRuntimeError(`[${iname.name}] is being made: it cannot be made again now`, {
        clips: `[INSMNGR4] The instance ${iname.name} has a slot-value which depends on the instance definition.`,
      });
    }
    if (old) {
      this.send(old, "delete", []);
      if (!old.deleted) {
        throw rulesRuntimeError(`instance [${iname.name}] could not be deleted to make a new one`, {
          clips: `[INSMNGR5] Unable to delete old instance ${iname.name}.`,
        });
      }
    }
    const inst = new Instance(iname, cls);
    // Until init places the defaults, a slot holds its static default (nil for a dynamic one).
    for (const s of cls.slots) {
      inst.slots.set(s.name, s.shared ? s.shared.value : s.dynamic ? NIL : s.value);
    }
    this.byName.set(iname.name, inst);
    if (this.topLevel && GENSYM.test(iname.name)) this.heldGensyms.add(iname.name);
    cls.instances.push(inst);
    this.traceInstance(true, inst);
    try {
      this.send(inst, "create", []);
      this.initialize(inst, overrides);
    } catch (e) {
      this.remove(inst);
      throw e;
    }
    if (!inst.deleted) this.watcher?.made(inst);
    return iname;
  }

  /**
   * `(initialize-instance target (slot value…)…)`: the overrides placed by put- messages, then
   * the init message (init-slots puts back every other slot's default). The instance's name.
   */
  initializeInstance(target: Value, overrides: Overrides): Value {
    const inst = this.find(target);
    if (!inst) {
      if (isSymbol(target) || isInstanceName(target) || isInstanceRef(target)) {
        const name = isInstanceRef(target) ? target.instanceName.name : formatValue(target);
        throw rulesRuntimeError(`no instance ${name} to initialize`, {
          clips: `[INSFUN2] No such instance ${isInstanceName(target) ? target.name : name} in function initialize-instance.`,
        });
      }
      throw rulesRuntimeError("initialize-instance expects an instance", {
        clips: "[INSFUN1] Expected a valid instance in function initialize-instance.",
      });
    }
    const before = new Map(inst.slots);
    this.initialize(inst, overrides);
    const changed = [...inst.slots].filter(([k, v]) => before.get(k) !== v).map(([k]) => k);
    if (changed.length > 0 && !inst.deleted) this.watcher?.changed(inst, changed);
    return inst.instanceName;
  }

  /** The overrides by put- messages, then init (CLIPS's InitializeInstance). */
  private initialize(inst: Instance, overrides: Overrides): void {
    const cls = inst.cls;
    if (inst.overridden !== null) {
      throw rulesRuntimeError(`[${inst.instanceName.name}] is being initialized already`, {
        clips: `[INSMNGR7] Instance ${inst.instanceName.name} is already being initialized.`,
      });
    }
    inst.overridden = new Set();
    try {
      // Evaluated once the instance is being initialized, as CLIPS does.
      for (const o of typeof overrides === "function" ? overrides() : overrides) {
        if (o.invalid) {
          throw rulesRuntimeError(`a slot override names no slot: ${o.name}`, {
            clips: "[INSMNGR9] Expected a valid slot name for slot-override.",
          });
        }
        if (!cls.slots.some((s) => s.name === o.name)) {
          throw rulesRuntimeError(`${cls.name} has no slot ${o.name}`, {
            clips: `[INSMNGR13] Slot ${o.name} does not exist in instance ${inst.instanceName.name}.`,
          });
        }
        this.send(inst, `put-${o.name}`, o.values);
        inst.overridden.add(o.name);
      }
      try {
        this.send(inst, "init", []);
      } catch (e) {
        throw withClipsLine(
          e,
          `[INSMNGR8] An error occurred during the initialization of instance ${inst.instanceName.name}.`,
        );
      }
    } finally {
      inst.overridden = null;
    }
  }

  /**
   * `(init-slots)`, what USER's init handler does: every slot not given a value since the
   * instance was made (or initialize-instance began) takes its default, in slot order.
   */
  initSlots(inst: Instance): Value {
    const given = inst.overridden ?? new Set<string>();
    const f: Frame = { tok: null, local: null, rhs: new Map(), host: this.host() };
    for (const s of inst.cls.slots) {
      if (given.has(s.name)) continue;
      if (s.required) {
        throw rulesRuntimeError(`slot ${s.name} of [${inst.instanceName.name}] needs a value`, {
          clips: `[INSMNGR14] Override required for slot ${s.name} in instance ${inst.instanceName.name}.`,
        });
      }
      // A shared slot's static default was placed once, when the class was defined.
      if (s.shared && !s.dynamic) {
        inst.slots.set(s.name, s.shared.value);
        continue;
      }
      this.place(inst, s, s.dynamic ? s.dynamic(f) : s.value);
    }
    return inst;
  }

  /** `(modify-instance target (slot value…)…)`: the slots set, then matched once. */
  modifyInstance(target: Value, overrides: { name: string; values: Value[] }[]): Value {
    const inst = this.find(target);
    if (!inst) return FALSE;
    const set: string[] = [];
    try {
      for (const o of overrides) {
        const slot = inst.cls.slots.find((s) => s.name === o.name);
        if (!slot) throw haltedIn(noSuchSlot(o.name, "modify-instance"), DIRECT_MODIFY);
        // CLIPS's direct-modify: the slots before one its checks refuse stay set. An override
        // with no value puts the slot's default, unchecked.
        const value = this.overrideValue(slot, o.values);
        if (o.values.length > 0) {
          this.checkStored(inst, slot, value, "modify-instance", DIRECT_MODIFY);
        }
        inst.slots.set(o.name, value);
        set.push(o.name);
        this.traceSlot(inst, o.name);
      }
    } finally {
      if (set.length) this.watcher?.changed(inst, set);
    }
    return TRUE;
  }

  /**
   * `(message-modify-instance target (slot value…)…)` as CLIPS's message-modify: each slot put by
   * its put- message (its handlers run, its checks apply), the instance matched once at the end
   * for the slots put before any error.
   */
  messageModifyInstance(target: Value, overrides: { name: string; values: Value[] }[]): Value {
    const inst = this.find(target);
    if (!inst) return FALSE;
    const changed = new Set<string>();
    inst.modifying = changed;
    try {
      for (const o of overrides) {
        if (!inst.cls.slots.some((s) => s.name === o.name)) {
          throw haltedIn(noSuchSlot(o.name, "modify-instance"), MESSAGE_MODIFY);
        }
        try {
          // The override is one argument (an empty multifield when it has no value), so a
          // put- never sees zero arguments here and does not reset the slot.
          this.send(inst, `put-${o.name}`, o.values.length === 0 ? [[]] : o.values);
        } catch (e) {
          throw haltedIn(e, MESSAGE_MODIFY);
        }
      }
    } finally {
      inst.modifying = null;
      if (changed.size > 0) this.watcher?.changed(inst, [...changed]);
    }
    return TRUE;
  }

  /**
   * `(duplicate-instance target [to NAME] (slot value…)…)` as CLIPS's direct-duplicate: a new
   * instance of the target's class (named by gensym* when no name is given; an instance of that
   * name is deleted first), the overrides placed, every other slot copied from the target, no
   * init message. With `byMessage`, `message-duplicate-instance` as CLIPS's message-duplicate:
   * the create message, the overrides and the copied slots put by put- messages, then init.
   * The new instance's name, or FALSE when there is no target.
   */
  duplicateInstance(
    target: Value,
    to: Value | null,
    overrides: { name: string; values: Value[] }[],
    byMessage = false,
  ): Value {
    const fn = byMessage ? "message-duplicate-instance" : "duplicate-instance";
    const src = this.find(target);
    if (!src) {
      throw rulesRuntimeError(`no instance ${formatValue(target)} to duplicate`, {
        clips: `[INSFUN2] No such instance ${isInstanceName(target) ? target.name : formatValue(target)} in function ${fn}.`,
      });
    }
    const halted = byMessage ? MESSAGE_DUPLICATE : DIRECT_DUPLICATE;
    const iname = to === null ? instanceName(this.gensymStar()) : toInstanceName(to);
    if (iname.name === src.instanceName.name) {
      throw haltedIn(
        rulesRuntimeError("duplicate-instance needs a new name for the copy", {
          clips: "[INSMODDP3] Instance copy must have a different name in duplicate-instance.",
        }),
        halted,
      );
    }
    const cls = src.cls;
    const old = this.byName.get(iname.name);
    // An instance of that name goes first: by the delete message for message-duplicate,
    // directly (no handler runs) for direct-duplicate, as CLIPS's BuildInstance.
    if (old && byMessage) this.send(old, "delete", []);
    else if (old) this.quash(old);
    const inst = new Instance(iname, cls);
    this.byName.set(iname.name, inst);
    cls.instances.push(inst);
    this.traceInstance(true, inst);
    try {
      if (byMessage) this.messageDuplicate(src, inst, overrides);
      else this.directDuplicate(src, inst, overrides);
    } catch (e) {
      this.remove(inst);
      throw haltedIn(e, halted);
    }
    this.watcher?.made(inst);
    return iname;
  }

  /** direct-duplicate's slots: the overrides placed (checked), the others copied. */
  private directDuplicate(
    src: Instance,
    inst: Instance,
    overrides: { name: string; values: Value[] }[],
  ): void {
    const placed = new Set<string>();
    for (const o of overrides) {
      const slot = inst.cls.slots.find((s) => s.name === o.name);
      if (!slot) throw noSuchSlot(o.name, "duplicate-instance");
      const value = this.overrideValue(slot, o.values);
      if (o.values.length > 0) this.checkStored(inst, slot, value, "duplicate-instance", null);
      inst.slots.set(o.name, value);
      placed.add(o.name);
      this.traceSlot(inst, o.name);
    }
    for (const s of inst.cls.slots) {
      if (placed.has(s.name)) continue;
      inst.slots.set(s.name, src.slots.get(s.name) as Value);
      this.traceSlot(inst, s.name);
    }
  }

  /**
   * message-duplicate's slots: create, each override by its put- message (one argument, an
   * empty multifield when it has no value), each other unshared slot copied by its put-
   * message (an initialize-only or read-only slot refuses it, as in CLIPS), then init with
   * every slot counted as given (init-slots places no default).
   */
  private messageDuplicate(
    src: Instance,
    inst: Instance,
    overrides: { name: string; values: Value[] }[],
  ): void {
    // Until a put- places it, a slot holds its static default (nil for a dynamic one).
    for (const s of inst.cls.slots) {
      inst.slots.set(s.name, s.shared ? s.shared.value : s.dynamic ? NIL : s.value);
    }
    this.send(inst, "create", []);
    const placed = new Set<string>();
    // Set while the puts run: setSlot reports nothing to the matcher before the instance is made.
    inst.modifying = new Set();
    try {
      for (const o of overrides) {
        if (!inst.cls.slots.some((s) => s.name === o.name)) {
          throw noSuchSlot(o.name, "duplicate-instance");
        }
        this.send(inst, `put-${o.name}`, o.values.length === 0 ? [[]] : o.values);
        placed.add(o.name);
      }
      for (const s of inst.cls.slots) {
        if (placed.has(s.name) || s.shared) continue;
        this.send(inst, `put-${s.name}`, [src.slots.get(s.name) as Value]);
      }
    } finally {
      inst.modifying = null;
    }
    inst.overridden = new Set(inst.cls.slots.map((s) => s.name));
    try {
      this.send(inst, "init", []);
    } finally {
      inst.overridden = null;
    }
  }

  /** gensym*: the next genN that names no instance, live or held (see heldGensyms). */
  private gensymStar(): string {
    let s = `gen${this.gensymCounter++}`;
    while (this.byName.has(s) || this.heldGensyms.has(s)) s = `gen${this.gensymCounter++}`;
    return s;
  }

  /** `==> instance [a] of A` / `<== …` under `(watch instances)`. */
  private traceInstance(made: boolean, inst: Instance): void {
    if (!this.watching("instances")) return;
    const arrow = made ? "==>" : "<==";
    this.host().print("t", `${arrow} instance [${inst.instanceName.name}] of ${inst.cls.name}\n`);
  }

  /** `::= local slot x in instance a <- 1` under `(watch slots)`. */
  private traceSlot(inst: Instance, slot: string): void {
    if (!this.watching("slots")) return;
    const v = formatValue(inst.slots.get(slot) as Value);
    this.host().print(
      "t",
      `::= local slot ${slot} in instance ${inst.instanceName.name} <- ${v}\n`,
    );
  }

  /** Deletes an instance for delete and delete-instance: not while it is initialized. */
  private quash(inst: Instance): void {
    if (inst.overridden !== null) {
      throw rulesRuntimeError(`[${inst.instanceName.name}] is being initialized`, {
        clips: `[INSMNGR6] Cannot delete instance ${inst.instanceName.name} during initialization.`,
      });
    }
    this.remove(inst);
  }

  private remove(inst: Instance): void {
    if (!inst.deleted) {
      this.traceInstance(false, inst);
      this.watcher?.gone(inst);
    }
    inst.deleted = true;
    this.byName.delete(inst.instanceName.name);
    const list = inst.cls.instances;
    const at = list.indexOf(inst);
    if (at >= 0) list.splice(at, 1);
  }

  /** The live instance a name, symbol or address designates, or null. */
  find(v: Value): Instance | null {
    if (v instanceof Instance) return v.deleted ? null : v;
    if (isInstanceName(v)) return this.named(v.name);
    if (isSymbol(v)) return this.named(v);
    return null;
  }

  /**
   * The instance a name stands for, as CLIPS 6.30 finds one: a bare name anywhere (names are one
   * namespace), `::name` one of a class the current module sees, `MOD::name` one of a class of
   * MOD.
   */
  private named(name: string): Instance | null {
    const found = this.byName.get(name);
    if (found !== undefined || !name.includes("::")) return found ?? null;
    const at = name.indexOf("::");
    const inst = this.byName.get(name.slice(at + 2));
    if (inst === undefined) return null;
    const module = name.slice(0, at);
    const ok =
      module === "" ? this.sees(inst.cls, this.scope.current()) : inst.cls.module === module;
    return ok ? inst : null;
  }

  private need(v: Value, fn: string): Instance {
    const inst = this.find(v);
    if (!inst) {
      const name = isInstanceName(v)
        ? v.name
        : isInstanceRef(v)
          ? v.instanceName.name
          : formatValue(v);
      throw rulesRuntimeError(`no instance ${name} (${fn})`, {
        clips: `[MSGPASS2] No such instance ${name} in function ${fn}.`,
      });
    }
    return inst;
  }

  /** Every defined message-handler's code (CLIPS holds what the handlers call). */
  handlerCode(): HandlerCode[] {
    return this.classList().flatMap((c) =>
      [...c.handlers.values()].flatMap((h) => (h.code ? [h.code] : [])),
    );
  }

  /** Whether a message being dispatched runs handlers the class defines (CLIPS keeps them busy). */
  handlersRunning(cls: ClassDef): boolean {
    return this.stack.some((d) =>
      [d.arounds, d.befores, d.primaries, d.afters].some((hs) => hs.some((h) => h.cls === cls)),
    );
  }

  /** `(send target message arg…)`. */
  sendTo(target: Value, msg: Value, args: Value[]): Value {
    if (!isSymbol(msg)) throw rulesRuntimeError("send expects a message name (a symbol)");
    // A symbol, number, string or multifield goes to its primitive class (SYMBOL, …): only
    // the handlers defined on those classes answer.
    if (!isInstanceName(target) && !isInstanceRef(target)) return this.send(target, msg, args);
    // A deleted instance's address is [INSFUN4], a name with no instance [MSGPASS2].
    const self = isInstanceRef(target)
      ? this.instanceArg(target, "send")
      : this.need(target, "send");
    return this.send(self, msg, args);
  }

  /** The handlers a message to an instance of `cls` runs, each kind in CLIPS's order. */
  private applicable(cls: ClassDef, msg: string): Record<HandlerKinds, Handler[]> {
    const arounds: Handler[] = [];
    const befores: Handler[] = [];
    const primaries: Handler[] = [];
    const afters: Handler[] = [];
    for (const c of cls.cpl) {
      const around = c.handlers.get(`${msg} around`);
      if (around) arounds.push(around);
      const before = c.handlers.get(`${msg} before`);
      if (before) befores.push(before);
      const primary = c.handlers.get(`${msg} primary`) ?? this.systemHandler(c, msg);
      if (primary) primaries.push(primary);
      const after = c.handlers.get(`${msg} after`);
      if (after) afters.unshift(after);
    }
    return { arounds, befores, primaries, afters };
  }

  /** `(preview-send CLASS message)`: the handlers a send would run, nested as they run. */
  previewSend(cls: ClassDef, msg: string): string {
    const a = this.applicable(cls, msg);
    if (a.primaries.length === 0 && a.arounds.length === 0) throw noPrimary(msg, cls.name);
    return previewText(a);
  }

  send(self: Value, msg: string, args: Value[]): Value {
    const cls = self instanceof Instance ? self.cls : this.classes.get(primitiveClass(self));
    const applicable = cls ? this.applicable(cls, msg) : undefined;
    const { arounds = [], befores = [], primaries = [], afters = [] } = applicable ?? {};
    if (primaries.length === 0 && arounds.length === 0) throw noPrimary(msg, selfLabel(self));
    const d: Dispatch = { self, args, arounds, befores, primaries, afters, around: 0, primary: 0 };
    // A send is one evaluation level, like a deffunction call (CLIPS's PerformMessage).
    stepIn();
    const trace = this.watching("messages") ? this.traceLine(msg, self, args) : null;
    if (trace) this.host().print("t", `MSG >> ${trace}`);
    this.stack.push(d);
    try {
      return this.next(d, args);
    } catch (e) {
      if (trace) this.printErrorNow(e);
      throw e;
    } finally {
      this.stack.pop();
      if (trace) this.host().print("t", `MSG << ${this.traceLine(msg, self, args)}`);
      stepOut();
    }
  }

  /** `init ED:1 (<Instance-a> 1 2)`: what `(watch messages)` prints after MSG >> / MSG <<. */
  private traceLine(what: string, self: Value, args: readonly Value[]): string {
    const shown = [
      self instanceof Instance
        ? `<${self.deleted ? "Stale " : ""}Instance-${self.instanceName.name}>`
        : formatValue(self),
      ...args.map((a) => formatValue(a)),
    ];
    return `${what} ED:${evaluationDepth()} (${shown.join(" ")})\n`;
  }

  /**
   * CLIPS prints an error where it happens, so before the `<<` trace lines of the sends and
   * handlers it unwinds through: the message is printed now and left empty for the batch.
   */
  private printErrorNow(e: unknown): void {
    if (!isKeelError(e) || typeof e.details.clips !== "string" || e.details.clips === "") return;
    this.host().print("t", clipsMessageText(e.details.clips));
    e.details.clips = "";
  }

  /** Calls one handler, traced under `(watch message-handlers)`. */
  private run(h: Handler, d: Dispatch, args: Value[]): Value {
    if (!this.watching("message-handlers")) return h.call(d.self, args);
    const text = this.traceLine("", d.self, args).slice(1);
    const head = `${h.name} ${h.type} in class ${h.cls.name}\n       `;
    this.host().print("t", `HND >> ${head}${text}`);
    try {
      return h.call(d.self, args);
    } catch (e) {
      this.printErrorNow(e);
      throw e;
    } finally {
      this.host().print("t", `HND << ${head}${this.traceLine("", d.self, args).slice(1)}`);
    }
  }

  /** Runs the next around handler, or the core (befores, the primaries, afters). */
  private next(d: Dispatch, args: Value[]): Value {
    const around = d.arounds[d.around];
    if (around) {
      d.around++;
      return this.run(around, d, args);
    }
    if (d.primary === 0) {
      for (const b of d.befores) this.run(b, d, args);
      const result = this.nextPrimary(d, args);
      for (const a of d.afters) this.run(a, d, args);
      return result;
    }
    return this.nextPrimary(d, args);
  }

  private nextPrimary(d: Dispatch, args: Value[]): Value {
    const p = d.primaries[d.primary];
    if (!p) return FALSE;
    d.primary++;
    return this.run(p, d, args);
  }

  /** `(call-next-handler)` and `(override-next-handler arg…)`. */
  callNextHandler(args: Value[] | null): Value {
    const d = this.stack[this.stack.length - 1];
    if (!d) {
      throw rulesRuntimeError("call-next-handler is only allowed inside a message-handler", {
        clips: "[MSGPASS1] Shadowed message-handlers not applicable in current context.",
      });
    }
    const use = args ?? d.args;
    if (d.around < d.arounds.length || d.primary === 0) return this.next(d, use);
    if (d.primary >= d.primaries.length) throw noPrimary("call-next-handler", selfLabel(d.self));
    return this.nextPrimary(d, use);
  }

  nextHandlerp(): boolean {
    const d = this.stack[this.stack.length - 1];
    return d !== undefined && (d.around < d.arounds.length || d.primary < d.primaries.length);
  }

  /** The handlers every USER instance answers: init, delete, print, get-/put- accessors. */
  private systemHandler(c: ClassDef, msg: string): Handler | undefined {
    const h = this.instanceHandler(c, msg);
    // Only instances reach them: the primitive classes have neither USER nor slots above them.
    if (!h) return undefined;
    // Like a handler written in it, a system handler runs in its class's module (USER's: MAIN),
    // so print names the class as MAIN sees it.
    const call = (self: Value, args: Value[]): Value => {
      const before = this.scope.enter(c.module);
      try {
        return h.call(self as Instance, args);
      } finally {
        this.scope.leave(before);
      }
    };
    return { ...h, call };
  }

  private instanceHandler(c: ClassDef, msg: string): InstanceHandler | undefined {
    if (c.name === "USER") {
      switch (msg) {
        case "init":
          return {
            cls: c,
            name: msg,
            type: "primary",
            call: (self) => {
              try {
                if (!self.overridden) {
                  throw rulesRuntimeError(
                    "init-slots is only valid while an instance is initialized",
                    {
                      clips: "[INSMNGR15] init-slots not valid in this context.",
                    },
                  );
                }
                return this.initSlots(self);
              } catch (e) {
                throw haltedIn(e, "message-handler init primary in class USER");
              }
            },
          };
        case "delete":
          return {
            cls: c,
            name: msg,
            type: "primary",
            call: (self) => {
              try {
                this.quash(self);
              } catch (e) {
                throw haltedIn(e, "message-handler delete primary in class USER");
              }
              return TRUE;
            },
          };
        case "create":
          // make-instance sends create first; USER's handler does nothing (CLIPS 6.30).
          return { cls: c, name: msg, type: "primary", call: () => TRUE };
        case "print":
          return {
            cls: c,
            name: msg,
            type: "primary",
            call: (self) => {
              this.host().print("t", this.printText(self));
              return VOID;
            },
          };
      }
      return undefined;
    }
    const get = msg.startsWith("get-");
    if (!get && !msg.startsWith("put-")) return undefined;
    const slotName = msg.slice(4);
    const slot = c.ownSlots.find((s) => s.name === slotName);
    if (!slot || (get ? !slot.read : !slot.write)) return undefined;
    const initOnly = slot.facets.accessMode === "initialize-only";
    return {
      cls: c,
      name: msg,
      type: "primary",
      call: get
        ? (self) => this.slotOf(self, slotName)
        : (self, args) => {
            // The arguments make one multifield (put-'s `$?value`): a single slot takes it
            // when it holds one field. No argument at all resets the slot to its default.
            const fields = flatten(args);
            if (!slot.multi && args.length > 0 && fields.length !== 1) {
              const shown = `(${fields.map((a) => formatValue(a)).join(" ")})`;
              throw haltedIn(
                rulesRuntimeError(`slot ${slotName} takes one value, not ${fields.length}`, {
                  clips: `[INSFUN7] ${shown} illegal for single-field slot ${slotName} of instance [${self.instanceName.name}] found in ${msg} primary in class ${c.name}.`,
                }),
                `message-handler ${msg} primary in class ${c.name}`,
              );
            }
            if (initOnly && !self.overridden) {
              // An initialize-only slot takes a value only while the instance is initialized.
              throw haltedIn(
                rulesRuntimeError(
                  `slot ${slotName} of [${self.instanceName.name}] is initialize-only`,
                  {
                    clips: `[MSGFUN3] ${slotName} slot in [${self.instanceName.name}] of ${self.cls.name}: write access denied.`,
                  },
                ),
                `message-handler ${msg} primary in class ${c.name}`,
              );
            }
            if (!slot.multi && args.length === 0) {
              return this.setSlot(self, slotName, this.defaultOf(slot));
            }
            const value = slot.multi ? fields : (fields[0] as Atom);
            const handler = `${msg} primary in class ${c.name}`;
            this.checkStored(self, slot, value, handler, `message-handler ${handler}`);
            return this.setSlot(self, slotName, value);
          },
    };
  }

  /** A modify-instance or duplicate-instance override's value for slot `s`. */
  private overrideValue(s: ClassSlot, values: Value[]): Value {
    if (values.length === 0) return this.defaultOf(s);
    return s.multi ? flatten(values) : slotValue(values);
  }

  /**
   * What an override or put- with no value stores (CLIPS's NoParamValue): the slot's static
   * default, or its dynamic one evaluated again; not checked, as CLIPS.
   */
  private defaultOf(s: ClassSlot): Value {
    return s.dynamic
      ? s.dynamic({ tok: null, local: null, rhs: new Map(), host: this.host() })
      : s.value;
  }

  /**
   * With dynamic constraint checking on, CLIPS's [CSTRNCHK1] for a value `slot`'s facets exclude
   * (allowed-classes included), found in `where`; the halt names `halted` (a handler).
   */
  private checkStored(
    inst: Instance,
    slot: ClassSlot,
    value: Value,
    where: string,
    halted: string | null,
  ): void {
    if (!this.constraintChecking()) return;
    const checked = checkedSlot(slot.facets.constraints, slot.multi, this.ofClasses);
    const broken = checked ? storedViolation(checked, value) : null;
    if (broken === null) return;
    // Printed here: this [CSTRNCHK1] has no blank line before it.
    this.host().print(
      "t",
      `[CSTRNCHK1] ${formatValue(value)} for slot ${slot.name} of instance [${inst.instanceName.name}] found in ${where}\n${broken}.\n`,
    );
    const error = rulesRuntimeError(
      `${formatValue(value)} breaks the constraints of slot ${slot.name}`,
      { clips: "" },
    );
    throw halted === null ? error : haltedIn(error, halted);
  }

  private printText(self: Instance): string {
    let out = `[${self.instanceName.name}] of ${this.label(self.cls)}\n`;
    for (const s of self.cls.slots) {
      const v = self.slots.get(s.name) as Value;
      if (isMultifield(v)) {
        const inner = v.map((x) => formatValue(x)).join(" ");
        out += inner ? `(${s.name} ${inner})\n` : `(${s.name})\n`;
      } else out += `(${s.name} ${formatValue(v)})\n`;
    }
    return out;
  }

  /** `?x:slot`, `?self:slot` and `(send ?x get-slot)` without handlers. */
  slotOf(target: Value, slot: string): Value {
    const inst = this.need(target, "slot access");
    const v = inst.slots.get(slot);
    if (v === undefined) {
      throw rulesRuntimeError(`[${inst.instanceName.name}] has no slot ${slot}`, {
        clips: `[MSGPASS3] Static reference to slot ${slot} of class ${inst.cls.name} does not apply to [${inst.instanceName.name}] of ${inst.cls.name}`,
      });
    }
    return v;
  }

  setSlot(target: Value, slot: string, value: Value): Value {
    const inst = this.need(target, "slot access");
    if (!inst.slots.has(slot))
      throw rulesRuntimeError(`[${inst.instanceName.name}] has no slot ${slot}`);
    const def = inst.cls.slots.find((s) => s.name === slot);
    const v = def?.multi && !isMultifield(value) ? [value as Atom] : value;
    if (def) this.place(inst, def, v);
    else {
      inst.slots.set(slot, v);
      this.traceSlot(inst, slot);
    }
    if (inst.overridden) inst.overridden.add(slot);
    else if (inst.modifying) inst.modifying.add(slot);
    else this.watcher?.changed(inst, [slot]);
    return v;
  }

  /** Puts a slot's value; a shared slot's goes to every instance that has the slot. */
  private place(inst: Instance, def: ClassSlot, v: Value): void {
    inst.slots.set(def.name, v);
    this.traceSlot(inst, def.name);
    if (!def.shared) return;
    def.shared.value = v;
    for (const other of this.byName.values()) {
      if (other === inst || !other.cls.slots.includes(def)) continue;
      other.slots.set(def.name, v);
      if (!other.overridden) this.watcher?.changed(other, [def.name]);
    }
  }

  /** Prints a CLIPS message where evaluation goes on after it. */
  report(clips: string): void {
    this.host().print("t", clipsMessageText(clips));
  }

  /** The instance whose handler is running (dynamic-get, dynamic-put, …: `fn`). */
  currentSelf(fn: string): Instance {
    const d = this.stack[this.stack.length - 1];
    if (!d) {
      throw rulesRuntimeError(`${fn} is only allowed inside a message-handler`, {
        clips: `[MSGFUN4] ${fn} may only be called from within message-handlers.`,
      });
    }
    // A handler of a primitive class (INTEGER, …) runs on a value that is no instance.
    if (!(d.self instanceof Instance)) {
      throw rulesRuntimeError(`${fn} needs an instance, not ${formatValue(d.self)}`, {
        clips: `[MSGFUN5] ${fn} operates only on instances.`,
      });
    }
    return d.self;
  }

  /**
   * The instance an argument names: an instance name or symbol ([INSFUN2] when there is
   * none), or an instance address ([INSFUN4] once deleted).
   */
  instanceArg(v: Value, fn: string): Instance {
    if (isInstanceRef(v)) {
      if (!(v as Instance).deleted) return v as Instance;
      throw rulesRuntimeError(`the instance address given to ${fn} was deleted`, {
        clips: `[INSFUN4] Invalid instance-address in function ${fn}.`,
      });
    }
    if (!isInstanceName(v) && !isSymbol(v)) {
      throw typeError(fn, 1, "instance address, instance name, or symbol");
    }
    const inst = this.find(v);
    if (inst) return inst;
    const name = isInstanceName(v) ? v.name : v;
    throw rulesRuntimeError(`no instance ${name} (${fn})`, {
      clips: `[INSFUN2] No such instance ${name} in function ${fn}.`,
    });
  }

  /** The instances of the named classes and their subclasses, as the query functions visit them. */
  candidates(among: Value[]): InstanceName[] {
    const out: InstanceName[] = [];
    const visit = (c: ClassDef, seen: Set<ClassDef>) => {
      if (seen.has(c)) return;
      seen.add(c);
      for (const i of c.instances) out.push(i.instanceName);
      for (const s of c.subclasses) visit(s, seen);
    };
    for (const n of among) {
      const c = isSymbol(n) ? this.lookup(n) : undefined;
      if (!c) throw rulesRuntimeError(`class ${formatValue(n)} is not defined (instance query)`);
      visit(c, new Set());
    }
    return out;
  }

  /** Every instance, oldest first, as snapshots keep them. */
  saved(): { name: string; cls: string; tag: number; slots: [string, Value][] }[] {
    return [...this.byName.values()].map((i) => ({
      name: i.instanceName.name,
      cls: keyOf(i.cls),
      tag: i.tag,
      slots: [...i.slots],
    }));
  }

  /** Puts back the instances of a snapshot (their classes defined already); no message is sent. */
  restoreInstances(
    list: readonly { name: string; cls: string; tag: number; slots: [string, Value][] }[],
  ): void {
    for (const i of [...this.byName.values()]) this.remove(i);
    for (const saved of list) {
      const cls = this.classes.get(saved.cls);
      // (A snapshot keeps each instance's class by its key, module-scope.ts.)
      if (!cls)
        throw rulesRuntimeError(`snapshot instance [${saved.name}] of unknown class ${saved.cls}`);
      const inst = new Instance(instanceName(saved.name), cls);
      for (const [k, v] of saved.slots) inst.slots.set(k, v);
      inst.tag = saved.tag;
      // A shared slot's one value is the one its instances hold.
      for (const s of cls.slots)
        if (s.shared) s.shared.value = inst.slots.get(s.name) ?? s.shared.value;
      this.byName.set(saved.name, inst);
      cls.instances.push(inst);
      this.watcher?.made(inst);
    }
  }

  /** What `(instances …)` reads (instances-command.ts). */
  private readonly listingHost: InstancesHost<ClassDef> = {
    instances: () => this.byName.values(),
    current: () => this.scope.current(),
    modules: () => this.scope.modules(),
    moduleExists: (m) => this.moduleExists(m),
    classesOf: (m) => this.classesOf(m),
    classIn: (m, name) =>
      this.classList().find((c) => c.name === name && (m === null || c.module === m)),
    sees: (cls, m) => this.sees(cls, m),
    label: (cls, m) => this.label(cls, m),
  };

  /** Whether a defmodule exists (the engine's modules; set by the engine). */
  moduleExists: (name: string) => boolean = (name) => name === "MAIN";

  /** The class a class-introspection function names, or CLIPS's message for none. */
  namedClass(v: Value, fn: string, index = 1): ClassDef {
    // CLIPS checks the argument is a symbol before it looks the class up.
    if (!isSymbol(v)) throw typeError(fn, index, "symbol");
    const cls = this.lookup(v);
    if (!cls) {
      throw rulesRuntimeError(`class ${formatValue(v)} is not defined (${fn})`, {
        clips: `[CLASSFUN1] Unable to find class ${formatValue(v)} in function ${fn}.`,
      });
    }
    return cls;
  }

  /** The class of an instance, for generic-function dispatch (null: not an instance). */
  classOf(v: Value): ClassDef | null {
    return this.find(v)?.cls ?? null;
  }

  /** instance-name, instance-address, instancep, class, unmake-instance, …; null when not one. */
  call(name: string, args: Value[]): Value | null {
    const a0 = args[0] as Value;
    switch (name) {
      case "send":
        return this.sendTo(a0, args[1] as Value, args.slice(2));
      case "call-next-handler":
        return this.callNextHandler(null);
      case "override-next-handler":
        return this.callNextHandler(args);
      case "next-handlerp":
        return this.nextHandlerp() ? TRUE : FALSE;
      case "instance-name":
        return this.instanceArg(a0, name).instanceName;
      case "instance-address":
        return this.instanceArg(a0, name);
      case "instancep":
        return isInstanceName(a0) || isInstanceRef(a0) ? TRUE : FALSE;
      case "instance-namep":
        return isInstanceName(a0) ? TRUE : FALSE;
      case "instance-addressp":
        return isInstanceRef(a0) ? TRUE : FALSE;
      case "instance-existp":
        if (!isInstanceName(a0) && !isInstanceRef(a0) && !isSymbol(a0)) {
          throw typeError(name, 1, "instance address, instance name, or symbol");
        }
        return this.find(a0) ? TRUE : FALSE;
      case "class":
        // An instance's class; any other value's primitive class (a symbol's is SYMBOL).
        return isInstanceName(a0) || isInstanceRef(a0)
          ? this.instanceArg(a0, name).cls.name
          : primitiveClass(a0);
      case "delete-instance":
        // The active instance goes directly (it is what USER's delete handler does).
        this.quash(this.currentSelf(name));
        return TRUE;
      case "unmake-instance": {
        const targets = args;
        let ok = true;
        for (const t of targets) {
          // `*` is every instance, unless one is named [*].
          if (t === "*" && !this.byName.has("*")) {
            for (const i of [...this.byName.values()]) this.send(i, "delete", []);
            continue;
          }
          const inst = this.instanceArg(t, name);
          this.send(inst, "delete", []);
          ok &&= inst.deleted;
        }
        return ok ? TRUE : FALSE;
      }
      case "symbol-to-instance-name":
        if (!isSymbol(a0)) throw typeError(name, 1, "symbol");
        return instanceName(a0);
      case "instance-name-to-symbol":
        if (isInstanceName(a0)) return a0.name;
        if (!isSymbol(a0)) throw typeError(name, 1, "instance name or symbol");
        return a0;
      case "class-existp":
        if (!isSymbol(a0)) throw typeError(name, 1, "symbol");
        return this.hasClass(a0) ? TRUE : FALSE;
      case "subclassp":
      case "superclassp": {
        const a = this.namedClass(a0, name);
        const b = this.namedClass(args[1] as Value, name, 2);
        const [sub, sup] = name === "subclassp" ? [a, b] : [b, a];
        return sub !== sup && sub.cpl.includes(sup) ? TRUE : FALSE;
      }
      case "class-superclasses":
      case "class-subclasses":
      case "class-slots":
      case "class-abstractp":
      case "class-reactivep":
      case "slot-existp": {
        const cls = this.namedClass(a0, name);
        const slotArg = name === "slot-existp";
        if (slotArg && !isSymbol(args[1] as Value)) throw typeError(name, 2, "symbol");
        // A slot the class has nowhere is FALSE before the keyword is looked at.
        if (slotArg && args[2] !== undefined && !isSymbol(args[2]))
          throw typeError(name, 3, "symbol");
        if (slotArg && !cls.slots.some((x) => x.name === args[1])) return FALSE;
        return classQuery(cls, name, args, inheritFlag(name, args, slotArg ? 3 : 2));
      }
      case "dynamic-get":
        return this.slotOf(this.currentSelf(name), String(a0));
      case "dynamic-put":
        return this.setSlot(this.currentSelf(name), String(a0), slotValue(args.slice(1)));
      case "instances":
        this.host().print("t", instancesCommand(this.listingHost, args));
        return VOID;
      case "ppinstance":
        this.host().print("t", this.printText(this.currentSelf(name)));
        return VOID;
      case "init-slots": {
        const self = this.currentSelf(name);
        // Only while the instance is being made or initialized (its init message).
        if (!self.overridden) {
          throw rulesRuntimeError("init-slots is only valid while an instance is initialized", {
            clips: "[INSMNGR15] init-slots not valid in this context.",
          });
        }
        return this.initSlots(self);
      }
      case "undefmessage-handler":
        return this.undefineHandler(args);
      case "preview-send":
        if (!isSymbol(args[1] as Value)) throw typeError(name, 2, "symbol");
        this.host().print("t", this.previewSend(this.namedClass(a0, name), args[1] as string));
        return VOID;
      case "browse-classes":
        this.host().print("t", browseClasses(this.namedClass(args[0] ?? "OBJECT", name)));
        return VOID;
      case "describe-class": {
        const cls = this.namedClass(a0, name);
        const handlers = [...cls.cpl].reverse().flatMap((c) => this.handlerList(c));
        this.host().print("t", describeClass(cls, handlers));
        return VOID;
      }
      case "get-class-defaults-mode":
        return this.defaultsMode;
      case "set-class-defaults-mode": {
        if (!isSymbol(a0)) throw typeError(name, 1, "symbol");
        if (a0 !== "conservation" && a0 !== "convenience") {
          throw typeError(name, 1, "symbol with value conservation or convenience");
        }
        const previous = this.defaultsMode;
        this.defaultsMode = a0;
        return previous;
      }
      case "gensym":
        return `gen${this.gensymCounter++}`;
      case "gensym*":
        return this.gensymStar();
      case "setgen": {
        // CLIPS's setgen: an integer (a float refused), at least 1.
        if (!isInteger(a0)) throw typeError("setgen", 1, "integer");
        const n = numberOf(a0);
        if (n < 1) throw typeError("setgen", 1, "number (greater than or equal to 1)");
        this.gensymCounter = n;
        return n;
      }
      default:
        return slotFunction(this, name, args);
    }
  }
}

/**
 * The class-introspection functions on one class: `inherit` (the last argument) takes in what
 * the class inherits (every superclass, every subclass at any depth, inherited slots).
 */
function classQuery(cls: ClassDef, name: string, args: Value[], inherit: boolean): Value {
  switch (name) {
    case "class-superclasses":
      return (inherit ? cls.cpl.slice(1) : cls.supers).map((c) => c.name);
    case "class-subclasses": {
      if (!inherit) return cls.subclasses.map((c) => c.name);
      // Depth first, each class once (INSTANCE-ADDRESS is under ADDRESS and INSTANCE).
      const out: string[] = [];
      const visit = (c: ClassDef): void => {
        for (const s of c.subclasses) {
          if (out.includes(s.name)) continue;
          out.push(s.name);
          visit(s);
        }
      };
      visit(cls);
      return out;
    }
    case "class-slots":
      return (inherit ? cls.slots : cls.ownSlots).map((s) => s.name);
    case "class-abstractp":
      return cls.abstract ? TRUE : FALSE;
    case "class-reactivep":
      // An abstract class has no direct instances to match.
      return cls.reactive && !cls.abstract ? TRUE : FALSE;
    default: {
      const slot = args[1];
      const slots = inherit ? cls.slots : cls.ownSlots;
      return slots.some((s) => s.name === slot) ? TRUE : FALSE;
    }
  }
}

/**
 * A single-field slot's own default must be one value: a static one that is not is
 * [INSFUN7], a dynamic one of more than one expression [CSTRNCHK1] (CLIPS checks both when the
 * class is defined).
 */
function singleDefaultCheck(s: ClassSlotAst, value: Value, print: (text: string) => void): void {
  if (s.dynamic && s.defaults.length > 1) {
    // Printed here: this [CSTRNCHK1] has no blank line before it (PrintErrorID's printCR off).
    print(
      `[CSTRNCHK1] Expression for slot ${s.name} found in dynamic default value\ndoes not satisfy the cardinality restrictions.\n`,
    );
    throw rulesRuntimeError(
      `the dynamic default of single-field slot ${s.name} has more than one value`,
      { clips: "" },
    );
  }
  if (!s.dynamic && s.defaults.length > 0 && isMultifield(value)) {
    throw rulesRuntimeError(`the default of single-field slot ${s.name} is not one value`, {
      clips: `[INSFUN7] ${formatValue(value)} illegal for single-field slot ${s.name} found in slot default value.`,
    });
  }
}

/** A slot's default from its constraints (no default, or `?DERIVE`), as CLIPS derives it. */
function derivedSlotDefault(multi: boolean, c: SlotConstraintFacets): Value {
  const types = c.types === null || c.types.includes("VARIABLE") ? null : c.types;
  const number = (t: string | undefined): Value | null => {
    const n = Number(t);
    if (t === undefined || t === "" || Number.isNaN(n)) return null;
    return t.includes(".") || t.includes("e") ? float(n) : n;
  };
  const plain = ["SYMBOL", "STRING", "LEXEME", "INTEGER", "FLOAT", "NUMBER"];
  // Only instance types allowed: the instance name [nil], else CLIPS's dummy instance address.
  if (types !== null && !types.some((t) => plain.includes(t))) {
    const name = types.includes("INSTANCE-NAME") || types.includes("INSTANCE");
    if (name || types.includes("INSTANCE-ADDRESS")) {
      const one = name ? instanceName("nil") : DUMMY_INSTANCE;
      return multi ? Array(Number(c.cardinality?.[0]) || 0).fill(one) : one;
    }
  }
  const low = Number(c.cardinality?.[0]);
  return derivedDefault({
    multi,
    types,
    allowed: c.allowedValues.length > 0 ? c.allowedValues : null,
    range: [number(c.range?.[0]), number(c.range?.[1])],
    cardinality: [Number.isInteger(low) ? low : null, null],
  });
}

/** How a message's target is named in errors: `[a]` for an instance. */
function selfLabel(self: Value): string {
  return self instanceof Instance ? `[${self.instanceName.name}]` : formatValue(self);
}

/** The system class of a value that is no instance. */
function primitiveClass(v: Value): string {
  if (isMultifield(v)) return "MULTIFIELD";
  if (isInteger(v)) return "INTEGER";
  if (isFloat(v)) return "FLOAT";
  if (isString(v)) return "STRING";
  return "SYMBOL";
}

/** A new instance's name without its module: `MOD::name` must name the class's module. */
function ownName(name: InstanceName, cls: ClassDef): InstanceName {
  const at = name.name.indexOf("::");
  if (at < 0) return name;
  if (name.name.slice(0, at) !== cls.module) {
    throw rulesRuntimeError(`instance name [${name.name}] names another module than its class's`, {
      clips: "[INSMNGR11] Invalid module specifier in new instance name.",
    });
  }
  return instanceName(name.name.slice(at + 2));
}

function toInstanceName(v: Value): InstanceName {
  if (isInstanceName(v)) return v;
  if (isSymbol(v)) return instanceName(v);
  if (isString(v)) return instanceName(v.value);
  throw rulesRuntimeError(`an instance name must be a symbol, not ${formatValue(v)}`);
}

function flatten(vals: Value[]): Atom[] {
  const out: Atom[] = [];
  for (const v of vals) {
    if (isMultifield(v)) out.push(...v);
    else out.push(v);
  }
  return out;
}

/**
 * The loop CLIPS prints when no class is left without a predecessor (PrintPartialOrderLoop):
 * each class left is given one predecessor (the first class in table order whose successors,
 * read newest first as CLIPS chains them, reach it), then the links are followed from the
 * table's first class until one repeats; the loop from there is printed.
 */
function precedenceLoop(table: readonly Order[]): string {
  const find = (c: ClassDef) => table.find((o) => o.cls === c);
  const pred = new Map<Order, Order>();
  for (const o of table) {
    for (const s of [...o.succs].reverse()) {
      const t = find(s.cls);
      if (t !== undefined && !pred.has(t)) pred.set(t, o);
    }
  }
  const seen = new Set<Order>();
  let o = table[0] as Order;
  while (!seen.has(o)) {
    seen.add(o);
    o = pred.get(o) as Order;
  }
  const names: string[] = [];
  const start = o;
  do {
    names.push(o.cls.name);
    o = pred.get(o) as Order;
  } while (o !== start);
  return `Precedence loop in superclasses: ${[...names, start.cls.name].join(" ")}`;
}

/** One class of the partial-order table: how many classes must precede it, which it precedes. */
interface Order {
  readonly cls: ClassDef;
  preds: number;
  readonly succs: Order[];
}

/**
 * CLIPS's class precedence list (inherpsr.c FindPrecedenceList): the superclasses in a table in
 * pre-order depth-first order (each once), ordered by two rules — a class before its direct
 * superclasses, and a class's direct superclasses in the order given — with Knuth's
 * topological sort as CLIPS varies it: each scan for a class with no predecessor left goes on
 * from where the last one was taken (wrapping around), which keeps a superclass's "family"
 * together. The class itself comes first.
 *
 * A class being redefined (`old`) heads the table to catch cycles: its old self may be among
 * the new superclasses' ancestors, where it stays a separate entry (CLIPS finds a class's
 * entry by its first occurrence), so the old self is placed and the head is caught in a loop.
 */
function precedenceList(cls: ClassDef, isaPos?: SourcePos, old?: ClassDef): ClassDef[] {
  const table: Order[] = [];
  const collect = (supers: readonly ClassDef[]) => {
    for (const s of supers) {
      if (table.some((o) => o.cls === s)) continue;
      table.push({ cls: s, preds: 0, succs: [] });
      collect(s.supers);
    }
  };
  collect(cls.supers);
  if (old) table.unshift({ cls: old, preds: 0, succs: [] });
  const find = (c: ClassDef) => table.find((o) => o.cls === c) as Order;
  const record = (c: ClassDef, after: readonly ClassDef[], from: number) => {
    const node = find(c);
    for (let j = from; j < after.length; j++) {
      const s = find(after[j] as ClassDef);
      node.succs.push(s);
      s.preds++;
    }
  };
  // Each direct superclass before every later one of its list.
  const inOrder = (supers: readonly ClassDef[]) => {
    for (let i = 0; i < supers.length; i++) record(supers[i] as ClassDef, supers, i + 1);
  };
  if (old) record(old, cls.supers, 0);
  for (const o of old ? table.slice(1) : [...table]) {
    record(o.cls, o.cls.supers, 0);
    inOrder(o.cls.supers);
  }
  inOrder(cls.supers);
  const sorted: ClassDef[] = [];
  let at = 0;
  let misses = 0;
  while (table.length > 0) {
    if (at >= table.length) at = 0;
    const o = table[at] as Order;
    if (o.preds !== 0) {
      at++;
      if (++misses >= table.length) {
        const partial = sorted.map((c) => ` ${c.name}`).join("");
        throw rulesLoadError(isaPos, `class ${cls.name} has no consistent precedence list`, {
          construct: `defclass ${cls.name}`,
          clips: `[INHERPSR5] Partial precedence list formed:${partial}\n${precedenceLoop(table)}`,
          echoThrough: true,
        });
      }
      continue;
    }
    for (const s of o.succs) s.preds--;
    o.succs.length = 0;
    sorted.push(o.cls);
    table.splice(at, 1);
    misses = 0;
  }
  // The head of a redefinition's table is placed first: the new class takes its place.
  return [cls, ...(old ? sorted.slice(1) : sorted)];
}

/** A class's key in the class table: `MOD::NAME`, a bare name for MAIN's (module-scope.ts). */
/**
 * Whether `cls` is the class an object pattern's `is-a` entry names: `MOD::NAME` that module's
 * class, a bare name (read without an engine) a class of that name in any module.
 */
export function isClassEntry(cls: ClassDef, entry: string): boolean {
  const at = entry.indexOf("::");
  if (at < 0) return cls.name === entry;
  return cls.name === entry.slice(at + 2) && cls.module === entry.slice(0, at);
}

function keyOf(cls: ClassDef): string {
  return constructKey(cls.module, cls.name);
}
