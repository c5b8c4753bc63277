/**
 * What a defmodule exports, and CLIPS 6.30's checks of an import against it (modulpsr.c): the
 * module must exist (`[PRNTUTIL1]`), export something (`[MODULPSR1] … does not export any
 * constructs.`), and a construct imported by name must be defined there and exported
 * (`[MODULPSR1] … does not export the deftemplate foo.`); what a module sees through its imports
 * ({@link importedModules}) and CLIPS's import/export conflict ({@link importConflict}).
 */

import { moduleError, moduleParts } from "./modules-syntax.js";
import type { SList, SNode } from "./reader.js";

/** A module's exports: every construct, or per construct type every one or some names. */
export interface ModuleExports {
  readonly all: boolean;
  readonly types: ReadonlyMap<string, "all" | readonly string[]>;
}

/** What the check asks the engine. */
export interface ImportHost {
  /** The module's exports, null when it exports nothing, undefined when there is no module. */
  exports(module: string): ModuleExports | null | undefined;
  /** Whether `module` defines the construct. */
  defines(kind: string, module: string, name: string): boolean;
}

const word = (n: SNode | undefined): string => (n?.type === "atom" ? n.text : "");
const isAll = (n: SNode | undefined): boolean =>
  word(n) === "ALL" && n?.type === "atom" && n.kind === "sfvar";

/** The exports of a defmodule whose syntax was checked (`modules-syntax.ts`); null for none. */
export function exportsOf(list: SList): ModuleExports | null {
  let all = false;
  const types = new Map<string, "all" | string[]>();
  for (const spec of moduleParts(list).specs) {
    if (spec.type !== "list" || word(spec.items[0]) !== "export") continue;
    const [, first, ...rest] = spec.items;
    if (isAll(first)) all = true;
    else if (first !== undefined && rest.length > 0 && word(rest[0]) !== "NONE") {
      types.set(word(first), isAll(rest[0]) ? "all" : rest.map(word));
    }
  }
  return all || types.size > 0 ? { all, types } : null;
}

/**
 * Throws CLIPS's error for an import of a module that does not exist or exports nothing,
 * checked as soon as the module's name is read (`at` the echo through it).
 */
export function checkImportedModule(
  spec: SList,
  module: string,
  at: string,
  host: ImportHost,
): void {
  const exports = host.exports(module);
  if (exports === undefined) {
    throw moduleError(spec, `[PRNTUTIL1] Unable to find defmodule ${module}.`, at);
  }
  if (exports === null) {
    throw moduleError(spec, `[MODULPSR1] Module ${module} does not export any constructs.`, at);
  }
}

/** Throws CLIPS's error for the first import of `list` its module cannot give. */
export function checkImports(list: SList, host: ImportHost): void {
  const { head, specs } = moduleParts(list);
  for (const spec of specs) {
    if (spec.type !== "list" || word(spec.items[0]) !== "import") continue;
    const [, moduleNode, typeNode, ...names] = spec.items;
    const module = word(moduleNode);
    const at = `${head}\n   (import ${module}`;
    checkImportedModule(spec, module, at, host);
    const exports = host.exports(module);
    if (!exports) continue;
    const kind = word(typeNode);
    if (names.length === 0 || word(names[0]) === "NONE") continue;
    const given = exports.all ? "all" : exports.types.get(kind);
    if (isAll(names[0])) {
      if (given !== undefined) continue;
      throw moduleError(
        spec,
        `[MODULPSR1] Module ${module} does not export any ${kind} constructs.`,
        `${at} ${kind} ?ALL)`,
      );
    }
    for (const n of names) {
      const name = word(n);
      const exported = given === "all" || given?.includes(name) === true;
      if (!exported || !host.defines(kind, module, name)) {
        const whole = `${at} ${kind} ${names.map(word).join(" ")})`;
        throw moduleError(
          n,
          `[MODULPSR1] Module ${module} does not export the ${kind} ${name}.`,
          whole,
        );
      }
    }
  }
}

/** One `(import MODULE …)`: every construct (kind null), or one kind, every name or some. */
export interface ModuleImport {
  readonly module: string;
  readonly kind: string | null;
  readonly names: readonly string[] | null;
}

/** The imports of a defmodule whose syntax was checked, in the order written (`?NONE` left out). */
export function importsOf(list: SList): ModuleImport[] {
  const out: ModuleImport[] = [];
  for (const spec of moduleParts(list).specs) {
    if (spec.type !== "list" || word(spec.items[0]) !== "import") continue;
    const [, moduleNode, first, ...rest] = spec.items;
    const module = word(moduleNode);
    if (isAll(first)) out.push({ module, kind: null, names: null });
    else if (first !== undefined && rest.length > 0 && word(rest[0]) !== "NONE") {
      out.push({ module, kind: word(first), names: isAll(rest[0]) ? null : rest.map(word) });
    }
  }
  return out;
}

/** Whether `exports` gives the construct `kind name`. */
export function exportsConstruct(
  exports: ModuleExports | null | undefined,
  kind: string,
  name: string,
): boolean {
  if (!exports) return false;
  if (exports.all) return true;
  const given = exports.types.get(kind);
  return given === "all" || given?.includes(name) === true;
}

/** What {@link importedModules} reads of the modules defined. */
export interface ModuleGraph {
  imports(module: string): readonly ModuleImport[];
  exports(module: string): ModuleExports | null | undefined;
  /** Whether `module` itself defines the construct. */
  defines(kind: string, module: string, name: string): boolean;
}

/**
 * The modules whose construct `kind name` module `from` sees through its imports, in CLIPS's
 * search order (each import in turn, then what the exporting module imports and exports on),
 * each once. Two or more is CLIPS's ambiguous reference.
 */
export function importedModules(
  graph: ModuleGraph,
  kind: string,
  name: string,
  from: string,
): string[] {
  const found: string[] = [];
  const seen = new Set<string>([from]);
  const visit = (module: string): void => {
    for (const i of graph.imports(module)) {
      if (i.kind !== null && i.kind !== kind) continue;
      if (i.names !== null && !i.names.includes(name)) continue;
      if (seen.has(i.module) || !exportsConstruct(graph.exports(i.module), kind, name)) continue;
      seen.add(i.module);
      if (graph.defines(kind, i.module, name) && !found.includes(i.module)) found.push(i.module);
      visit(i.module);
    }
  };
  visit(from);
  return found;
}

/**
 * CLIPS's import/export conflict ([CSTRCPSR3]): defining `kind name` in `module` would leave
 * some module seeing two of that name (its own or imported ones), `module` counted as if it
 * defined it already.
 */
export function importConflict(
  graph: ModuleGraph,
  modules: Iterable<string>,
  kind: string,
  name: string,
  module: string,
): boolean {
  const withNew: ModuleGraph = {
    imports: (m) => graph.imports(m),
    exports: (m) => graph.exports(m),
    defines: (k, m, n) => (m === module && k === kind && n === name) || graph.defines(k, m, n),
  };
  for (const m of modules) {
    const seen = importedModules(withNew, kind, name, m);
    const own = withNew.defines(kind, m, name) ? 1 : 0;
    if (own + seen.length > 1) return true;
  }
  return false;
}

/** The construct kinds in the order CLIPS 6.30 checks a new defmodule's imports for them. */
const PORT_KINDS = ["defclass", "defgeneric", "deffunction", "defglobal", "deftemplate"] as const;

/**
 * CLIPS's conflict of a defmodule's own imports (modulpsr.c FindMultiImportConflict): a
 * construct of some module that the new module `module`, importing `imports`, would see
 * through two of them. The first one found, or null.
 */
export function multiImportConflict(
  graph: ModuleGraph,
  modules: Iterable<string>,
  names: (kind: string, module: string) => readonly string[],
  module: string,
  imports: readonly ModuleImport[],
): { kind: string; name: string } | null {
  const withNew: ModuleGraph = {
    imports: (m) => (m === module ? imports : graph.imports(m)),
    exports: (m) => graph.exports(m),
    defines: (k, m, n) => m !== module && graph.defines(k, m, n),
  };
  for (const m of modules) {
    if (m === module) continue;
    for (const kind of PORT_KINDS) {
      for (const name of names(kind, m)) {
        if (importedModules(withNew, kind, name, module).length > 1) return { kind, name };
      }
    }
  }
  return null;
}
