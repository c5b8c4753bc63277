/** Schemas and small readers shared by the parity programs. */
import type { GraphApi, Values } from "../api.js";

export const concat = (current: string[], update: string[]): string[] => current.concat(update);

/** `n`: a last-value number; `log`: a list every node appends to. */
export function counterState(api: GraphApi): unknown {
  return api.Annotation.Root({
    n: api.Annotation(),
    log: api.Annotation({ reducer: concat, default: () => [] }),
  });
}

export function num(state: Values, key: string): number {
  const value = state[key];
  if (typeof value !== "number") throw new Error(`state.${key} is not a number`);
  return value;
}

/** Resolves after `ms` so that parallel nodes finish in an order unlike their start order. */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
