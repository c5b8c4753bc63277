/**
 * The agendas of the defmodules and the focus stack (CLIPS 6.30, agenda.c and focus commands):
 * each rule's activations go to its module's agenda; `run` fires from the module on top of the
 * focus stack, and pops a module whose agenda is empty. Without defmodules everything is MAIN.
 */
import { type Activation, Agenda } from "./agenda.js";

export const MAIN = "MAIN";

export class FocusAgenda {
  private readonly agendas = new Map<string, Agenda>([[MAIN, new Agenda()]]);
  /** The focus stack, top last. */
  stack: string[] = [MAIN];
  private clock = 0;

  private agendaOf(module: string): Agenda {
    let a = this.agendas.get(module);
    if (!a) {
      a = new Agenda();
      this.agendas.set(module, a);
    }
    return a;
  }

  nextTimetag(): number {
    return ++this.clock;
  }

  add(a: Activation): void {
    this.agendaOf(a.rule.module ?? MAIN).add(a);
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
      this.stack.pop();
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
      if (this.focus() !== m) this.stack.push(m);
    }
  }

  popFocus(): string | null {
    return this.stack.pop() ?? null;
  }

  /** One module's activations in firing order. */
  listModule(module: string): Activation[] {
    return this.agendas.get(module)?.list() ?? [];
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
    this.stack = [MAIN];
  }

  get timetagClock(): number {
    return this.clock;
  }
  set timetagClock(v: number) {
    this.clock = v;
  }
}
