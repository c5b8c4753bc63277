/**
 * Module-qualified keys of constructs. CLIPS 6.30's modules are namespaces: `FOO::d2` and
 * `BAR::d2` are two rules. The engine keys a construct of MAIN by its bare name (so programs
 * without modules pay nothing) and one of another module by `MODULE::name`.
 *
 * @example
 * constructKey("FOO", "d2"); // "FOO::d2"
 * constructKey("MAIN", "d2"); // "d2"
 * bareName("FOO::d2"); // "d2"
 */
import { MAIN } from "./focus-agenda.js";

/** The engine's key of the construct `name` of `module` (absent: MAIN). */
export function constructKey(module: string | undefined, name: string): string {
  return module === undefined || module === MAIN ? name : `${module}::${name}`;
}

/** The name a key stands for, without its module (what listings and traces print). */
export function bareName(key: string): string {
  const at = key.indexOf("::");
  return at > 0 ? key.slice(at + 2) : key;
}

/** The module a key belongs to. */
export function keyModule(key: string): string {
  const at = key.indexOf("::");
  return at > 0 ? key.slice(0, at) : MAIN;
}

/**
 * The key a name typed by the user stands for when its kind is seen only in its own module
 * (defrule, deffacts, definstances): `MOD::name` exactly, a bare name in `current`.
 */
export function localKey(typed: string, current: string): string {
  const at = typed.indexOf("::");
  return at > 0
    ? constructKey(typed.slice(0, at), typed.slice(at + 2))
    : constructKey(current, typed);
}

/**
 * How a construct table resolves the names typed in modules (the engine implements it on the
 * defmodules' imports and exports): one mechanism for every kind of construct that modules
 * import and export.
 */
export interface ModuleScope {
  /** The current module. */
  current(): string;
  /** Every module, in definition order. */
  modules(): readonly string[];
  /**
   * The key (see {@link constructKey}) a name of `kind` typed in module `from` (the current one
   * when absent) stands for: `MOD::name` exactly; a bare name `from`'s own when `defines` says
   * so, else the first one its imports give, else `from`'s.
   */
  key(kind: string, typed: string, defines: (key: string) => boolean, from?: string): string;
  /** Whether module `from` sees the construct keyed `key`: its own, or one it imports. */
  sees(kind: string, key: string, from: string): boolean;
  /**
   * Makes `module` current for a deffunction's, method's or message-handler's actions, as CLIPS
   * runs them (EvaluateProcActions); the module to give {@link leave} once they are done.
   */
  enter(module: string): string;
  /** Puts back the module {@link enter} gave, whatever the actions made current. */
  leave(before: string): void;
}

/** The scope of an engine with MAIN its only module (what a table uses until told otherwise). */
export const ONE_MODULE: ModuleScope = {
  current: () => MAIN,
  modules: () => [MAIN],
  key: (_kind, typed) => {
    const at = typed.indexOf("::");
    return at > 0 ? constructKey(typed.slice(0, at), typed.slice(at + 2)) : typed;
  },
  sees: (_kind, key) => keyModule(key) === MAIN,
  enter: () => MAIN,
  leave: () => {},
};
