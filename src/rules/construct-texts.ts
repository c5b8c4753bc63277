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
  /** For a defglobal: the global's value expression. */
  readonly value?: SNode;
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

export class ConstructTexts {
  private readonly kinds = new Map<string, Map<string, Entry>>();

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
      this.put(kind, nameNode.text, { form, module: "" });
      return;
    }
    const [mod, name] = splitName(nameNode.text, module);
    this.put(kind, name, { form, module: mod });
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
      this.put("defglobal", v.text, { form, module: mod, value });
    }
  }

  /** Records one global of a defglobal as soon as it is defined (CLIPS defines them one by one). */
  recordGlobal(form: SList, module: string, name: string, value: SNode): void {
    this.put("defglobal", name, { form, module, value });
  }

  private put(kind: string, name: string, entry: Entry): void {
    let names = this.kinds.get(kind);
    if (!names) {
      names = new Map();
      this.kinds.set(kind, names);
    }
    names.delete(name);
    names.set(name, entry);
  }

  forget(kind: ConstructKind, name: string): void {
    this.kinds.get(kind)?.delete(name);
  }

  clear(): void {
    this.kinds.clear();
  }

  has(kind: ConstructKind, name: string): boolean {
    return this.kinds.get(kind)?.has(name) ?? false;
  }

  /** The names of one kind in definition order, those of `module` only when given. */
  names(kind: ConstructKind, module?: string): string[] {
    const names = this.kinds.get(kind);
    if (!names) return [];
    const out: string[] = [];
    for (const [name, e] of names) if (module === undefined || e.module === module) out.push(name);
    return out;
  }

  /** Every construct's form with its kind and name, for reference scans (`undefine.ts`). */
  *entries(): Iterable<{ kind: string; name: string; form: SList }> {
    for (const [kind, names] of this.kinds) {
      for (const [name, e] of names) yield { kind, name, form: e.form };
    }
  }

  /** The module a construct belongs to. */
  moduleOf(kind: ConstructKind, name: string): string | undefined {
    return this.kinds.get(kind)?.get(name)?.module;
  }

  /**
   * The construct's text as CLIPS's pp command prints it (ending in a line break); "" when
   * CLIPS keeps none (MAIN), null when the printer does not replay this kind.
   */
  pretty(kind: ConstructKind, name: string): string | null {
    const e = this.kinds.get(kind)?.get(name);
    if (!e) return null;
    if (kind === "defglobal") return e.value ? ppDefglobal(e.module, name, e.value) : null;
    if (kind === "defclass" || kind === "definstances") return ppCool(e.form, e.module);
    return ppConstruct(e.form, e.module);
  }
}
