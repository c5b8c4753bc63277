/** Milliseconds spent in each phase of a scan (printed by `keel scan -v` and the bench). */
export interface ScanTimings {
  /** Reading the stored scan (`--changed`, `-n`). */
  load: number;
  walk: number;
  parse: number;
  tokenize: number;
  detect: number;
  rules: number;
  write: number;
}

/** A stopwatch that adds the time of each `measure` call to a phase. */
export class PhaseClock {
  readonly timings: ScanTimings = {
    load: 0,
    walk: 0,
    parse: 0,
    tokenize: 0,
    detect: 0,
    rules: 0,
    write: 0,
  };

  measure<T>(phase: keyof ScanTimings, fn: () => T): T {
    const start = performance.now();
    try {
      return fn();
    } finally {
      this.timings[phase] += performance.now() - start;
    }
  }

  async measureAsync<T>(phase: keyof ScanTimings, fn: () => Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await fn();
    } finally {
      this.timings[phase] += performance.now() - start;
    }
  }
}
