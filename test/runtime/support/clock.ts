import type { Clock } from "../../../src/core/index.js";

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(private current = Date.parse("2026-05-01T10:00:00.000Z")) {}
  now(): number {
    return this.current;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}
