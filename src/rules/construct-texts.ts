/**
 * The constructs an engine holds, by kind and name in definition order, with the form each was
 * defined from and its module: what CLIPS's introspection commands (`ppdefrule`,
 * `list-deffunctions`, `get-defrule-list`, …) read. The pretty-printed text is made when asked
 * for, from the form (`pp-constructs.ts`).
 */

import { ppConstruct, ppDefglobal } from "./pp-constructs.js";
import { ppCool } from "./pp-cool.js";
import type { SList, SNode } from "./reader.js";

interface Entry {
  readonly form: SList;
  readonly module: string;
  /** The construct's name without its module. */
  readonly name: string;
  /** For a defglobal: the global's value expression. */
  readonly value?: SNode;
  /** An implied deftemplate: CLIPS made it for an ordered relation (it has no text). */
  readonly implied?: true;
  /** An implied deftemplate a command made (replaying the constructs would not remake it). */
  readonly byCommand?: true;
}

/** The construct kinds the registry keeps, as CLIPS names them. */
export type ConstructKind =
  | "defrule"
  | "deftemplate"
  | "deffacts"
  | "deffunction"
  | "defglobal"
  | "defmodule"
  | "defgeneric"
  | "defclass"
  | "definstances";

/** `MOD::name` → [MOD, name]; a bare name is in `module`. */
export function splitName(text: string, module: string): [string, string] {
  const at = text.indexOf("::");
  return at < 0 ? [module, text] : [text.slice(0, at), text.slice(at + 2)];
}

/** The kinds whose bare names resolve by module scope: a module's own, then its imports. */
const SCOPED: ReadonlySet<string> = new Set([
  "defclass",
  "deffacts",
  "deffunction",
  "defgeneric",
  "definstances",
  "defrule",
  "deftemplate",
]);

export class ConstructTexts {
  private readonly kinds = new Map<string, Map<string, Entry>>();
  /** Constructs kept without their text (`kind MOD::name`): a partly deleted deffunction. */
  private readonly textless = new Set<string>();

  /**
   * The modules whose construct `kind name` module `from` imports (modules-imports.ts
   * importedModules); the engine sets it. A module importing `?ALL` from one exporting `?ALL`
   * sees its rules too (CLIPS 6.30 finds them so).
   */
  imported: (kind: string, name: string, from: string) => readonly string[] = () => [];

  /** Records a construct just defined (`module`: the current module). A redefinition moves last. */
  record(form: SList, module: string): void {
    const head = form.items[0];
    const nameNode = form.items[1];
    if (head?.type !== "atom") return;
    const kind = head.text;
    if (kind === "defglobal") {
      this.recordGlobals(form, module);
      return;
    }
    if (kind === "defmethod" || kind === "defmessage-handler") return;
    if (nameNode?.type !== "atom") return;
    if (kind === "defmodule") {
      this.put(kind, { form, module: "", name: nameNode.text });
      return;
    }
    const [mod, name] = splitName(nameNode.text, module);
    this.put(kind, { form, module: mod, name });
  }

  private recordGlobals(form: SList, module: string): void {
    let i = 1;
    let mod = module;
    const first = form.items[1];
    if (first?.type === "atom" && first.kind === "symbol") {
      mod = first.text;
      i = 2;
    }
    for (; i + 2 < form.items.length; i += 3) {
      const v = form.items[i];
      const value = form.items[i + 2];
      if (v?.type !== "atom" || v.kind !== "gvar" || value === undefined) break;
      this.put("defglobal", { form, module: mod, name: v.text, value });
    }
  }

  /**
   * Records the implied deftemplate CLIPS makes in `module` for an ordered relation: listed with
   * the deftemplates in the order made, without text; a deftemplate of its name replaces it.
   */
  recordImplied(name: string, module: string, byCommand: boolean): void {
    const form: SList = { type: "list", items: [], pos: { line: 0, column: 0 }, source: "" };
    const entry = { form, module, name, implied: true as const };
    this.put("deftemplate", byCommand ? { ...entry, byCommand: true } : entry);
  }

  /** Whether `module::name` is an implied deftemplate. */
  isImplied(name: string, module: string): boolean {
    return this.kinds.get("deftemplate")?.get(`${module}::${name}`)?.implied === true;
  }

  /**
   * The implied deftemplates commands made, as `MODULE::name` in the order made: what a
   * snapshot keeps (the constructs' own are remade by replaying them).
   */
  commandImpliedKeys(): string[] {
    const out: string[] = [];
    for (const [key, e] of this.kinds.get("deftemplate") ?? []) if (e.byCommand) out.push(key);
    return out;
  }

  /** Records one global of a defglobal as soon as it is defined (CLIPS defines them one by one). */
  recordGlobal(form: SList, module: string, name: string, value: SNode): void {
    this.put("defglobal", { form, module, name, value });
  }

  /** Entries are keyed `MODULE::name`: modules are namespaces, two may hold one name. */
  private put(kind: string, entry: Entry): void {
    let names = this.kinds.get(kind);
    if (!names) {
      names = new Map();
      this.kinds.set(kind, names);
    }
    const key = `${entry.module}::${entry.name}`;
    names.delete(key);
    names.set(key, entry);
    this.textless.delete(`${kind} ${key}`);
  }

  /**
   * The entry `name` stands for seen from module `from`: `MOD::name` exactly; a bare name in
   * `from` first, then (the kinds modules import) the first its imports give; without `from`, the
   * first defined anywhere.
   */
  private find(kind: string, name: string, from?: string): Entry | undefined {
    const names = this.kinds.get(kind);
    if (!names) return undefined;
    if (kind === "defmodule") return names.get(`::${name}`);
    if (name.includes("::")) return names.get(name);
    if (from !== undefined) {
      const own = names.get(`${from}::${name}`);
      if (own) return own;
      if (SCOPED.has(kind)) {
        const from2 = this.imported(kind, name, from)[0];
        return from2 === undefined ? undefined : names.get(`${from2}::${name}`);
      }
    }
    for (const e of names.values()) if (e.name === name) return e;
    return undefined;
  }

  /**
   * The module whose construct a bare `name` typed in `from` names for the pp and undef
   * commands: for the kinds scoped by imports, `from`'s own or the first one imported; for the
   * others, `from`.
   */
  scopeOf(kind: ConstructKind, name: string, from: string): string {
    if (!SCOPED.has(kind) || this.kinds.get(kind)?.has(`${from}::${name}`)) return from;
    return this.imported(kind, name, from)[0] ?? from;
  }

  /** Forgets `name` (`MOD::name`, or a bare name as {@link find} resolves it from `from`). */
  forget(kind: ConstructKind, name: string, from?: string): void {
    const e = this.find(kind, name, from);
    if (e) this.kinds.get(kind)?.delete(`${e.module}::${e.name}`);
    if (e) this.textless.delete(`${kind} ${e.module}::${e.name}`);
  }

  /** Keeps the construct listed but drops its text: its pp command prints nothing (CLIPS). */
  dropText(kind: ConstructKind, name: string, from?: string): void {
    const e = this.find(kind, name, from);
    if (e) this.textless.add(`${kind} ${e.module}::${e.name}`);
  }

  /** The form a construct was defined from, if it is recorded. */
  formOf(kind: ConstructKind, name: string, from?: string): SList | undefined {
    return this.find(kind, name, from)?.form;
  }

  clear(): void {
    this.textless.clear();
    this.kinds.clear();
  }

  /** Whether `name` (`MOD::name` or bare, see {@link find}) is defined. */
  has(kind: ConstructKind, name: string, from?: string): boolean {
    return this.find(kind, name, from) !== undefined;
  }

  /** The names of one kind in definition order, those of `module` only when given. */
  names(kind: ConstructKind, module?: string): string[] {
    const names = this.kinds.get(kind);
    if (!names) return [];
    const out: string[] = [];
    for (const e of names.values())
      if (module === undefined || e.module === module) out.push(e.name);
    return out;
  }

  /**
   * Every construct's form with its kind, name and module, for reference scans (undefine.ts,
   * the classes code holds).
   */
  *entries(): Iterable<{ kind: string; name: string; module: string; form: SList }> {
    for (const [kind, names] of this.kinds) {
      // An implied deftemplate has no form to scan.
      for (const e of names.values())
        if (!e.implied) yield { kind, name: e.name, module: e.module, form: e.form };
    }
  }

  /** The module of the construct `name` stands for seen from `from` (see {@link find}). */
  moduleOf(kind: ConstructKind, name: string, from?: string): string | undefined {
    return this.find(kind, name, from)?.module;
  }

  /**
   * The construct's text as CLIPS's pp command prints it (ending in a line break); "" when
   * CLIPS keeps none (MAIN), null when the printer does not replay this kind.
   */
  pretty(kind: ConstructKind, name: string, from?: string): string | null {
    const e = this.find(kind, name, from);
    if (!e) return null;
    // CLIPS keeps no text for an implied deftemplate: its pp command prints nothing.
    if (e.implied || this.textless.has(`${kind} ${e.module}::${e.name}`)) return "";
    if (kind === "defglobal") return e.value ? ppDefglobal(e.module, e.name, e.value) : null;
    if (kind === "defclass" || kind === "definstances") return ppCool(e.form, e.module);
    return ppConstruct(e.form, e.module);
  }
}
