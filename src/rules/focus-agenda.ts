/**
 * The agendas of the defmodules and the focus stack (CLIPS 6.30, agenda.c and focus commands):
 * each rule's activations go to its module's agenda; `run` fires from the module on top of the
 * focus stack, and pops a module whose agenda is empty. Without defmodules everything is MAIN.
 */
import { type Activation, Agenda } from "./agenda.js";
import type { Strategy } from "./strategy.js";
import { focusTrace } from "./watch.js";

export const MAIN = "MAIN";

export class FocusAgenda {
  private readonly agendas = new Map<string, Agenda>([[MAIN, new Agenda()]]);
  /** The focus stack, top last. */
  stack: string[] = [MAIN];
  private clock = 0;
  /** The conflict resolution strategy (`set-strategy`); CLIPS keeps it across reset and clear. */
  strategy: Strategy = "depth";
  /** Prints `(watch focus)` messages; null when focus is not watched. */
  trace: ((text: string) => void) | null = null;
  /**
   * Told the module that becomes the current module as focus moves: each one focused (even one
   * already on top), and the new top after a pop (CLIPS's EnvFocus and RemoveFocus).
   */
  onFocus: (module: string) => void = () => {};
  /** The random strategy's generator state (a fixed seed: runs are reproducible). */
  private seed = 1;

  /** The agenda last looked up, and its module: most activations go to the module just used. */
  private lastModule = MAIN;
  private lastAgenda: Agenda | null = null;

  private agendaOf(module: string): Agenda {
    if (module === this.lastModule && this.lastAgenda !== null) return this.lastAgenda;
    let a = this.agendas.get(module);
    if (!a) {
      a = new Agenda();
      this.agendas.set(module, a);
    }
    this.lastModule = module;
    this.lastAgenda = a;
    return a;
  }

  nextTimetag(): number {
    return ++this.clock;
  }

  add(a: Activation): void {
    if (this.strategy === "random" && a.randomId === undefined) a.randomId = this.draw();
    this.agendaOf(a.rule.module ?? MAIN).add(a, this.strategy);
  }

  /** `(set-strategy s)`: every agenda is re-placed under the new strategy; returns the old one. */
  setStrategy(strategy: Strategy): Strategy {
    const old = this.strategy;
    this.strategy = strategy;
    if (old === strategy) return old;
    for (const agenda of this.agendas.values()) {
      const acts = agenda.list();
      agenda.clear();
      for (const a of acts) this.add(a);
    }
    return old;
  }

  /** A 31-bit linear congruential draw (CLIPS's numbers come from C's rand and cannot match). */
  private draw(): number {
    this.seed = (this.seed * 1103515245 + 12345) % 2147483648;
    return this.seed;
  }

  remove(a: Activation): void {
    this.agendaOf(a.rule.module ?? MAIN).remove(a);
  }

  /**
   * The activation that fires next: from the focus module, popping modules whose agenda is
   * empty; null when the focus stack empties.
   */
  next(): Activation | null {
    for (;;) {
      const top = this.stack[this.stack.length - 1];
      if (top === undefined) return null;
      const a = this.agendaOf(top).peek();
      if (a) return a;
      this.popFocus();
    }
  }

  /** The module in focus, or null when the stack is empty. */
  focus(): string | null {
    return this.stack[this.stack.length - 1] ?? null;
  }

  /** `(focus A B)`: pushes B, then A (A ends on top); a module already on top is not doubled. */
  pushFocus(modules: readonly string[]): void {
    for (let i = modules.length - 1; i >= 0; i--) {
      const m = modules[i] as string;
      const top = this.focus();
      this.onFocus(m);
      if (top === m) continue;
      this.trace?.(focusTrace(true, m, top));
      this.stack.push(m);
    }
  }

  popFocus(): string | null {
    const m = this.stack.pop() ?? null;
    if (m !== null) this.trace?.(focusTrace(false, m, this.focus()));
    const top = this.focus();
    if (m !== null && top !== null) this.onFocus(top);
    return m;
  }

  /** Takes the topmost occurrence of `module` off the stack (a rule's (return) does). */
  removeFocus(module: string): void {
    const at = this.stack.lastIndexOf(module);
    if (at < 0) return;
    if (at === this.stack.length - 1) {
      this.popFocus();
      return;
    }
    this.stack.splice(at, 1);
    this.trace?.(focusTrace(false, module, null));
  }

  /** `(clear-focus-stack)`: pops every module. */
  clearStack(): void {
    while (this.stack.length > 0) this.popFocus();
  }

  /** One module's activations in firing order. */
  listModule(module: string): Activation[] {
    return this.agendas.get(module)?.list() ?? [];
  }

  /** How many activations every agenda holds. */
  get size(): number {
    let n = 0;
    for (const a of this.agendas.values()) n += a.size;
    return n;
  }

  /** Every activation, module by module (for snapshots). */
  list(): Activation[] {
    const out: Activation[] = [];
    for (const a of this.agendas.values()) out.push(...a.list());
    return out;
  }

  /** Empties every agenda; the focus stack becomes MAIN alone (as reset leaves it). */
  clear(): void {
    for (const a of this.agendas.values()) a.clear();
    this.clearStack();
    this.pushFocus([MAIN]);
  }

  get timetagClock(): number {
    return this.clock;
  }
  set timetagClock(v: number) {
    this.clock = v;
  }
}
