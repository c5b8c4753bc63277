/**
 * Shared benchmark helpers. Every benchmark prints Keel's figure, the peer's figure measured in
 * the same run, and the ratio; machines are shared and noisy, so figures are medians of rounds.
 */

/** One comparison row: lower is better for time-per-unit figures. */
export interface Comparison {
  name: string;
  unit: string;
  keel: number;
  peer: number | undefined;
  peerName: string;
  /** The ratio peer/keel the issue asks for, if any (e.g. 30 for "at least 30x"). */
  target?: number;
  /** true when a larger figure is better (throughput); default false (time). */
  higherIsBetter?: boolean;
}

/** The median (the upper one of an even count); NaN for no values. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Runs `fn` `rounds` times and returns the median of what it returns. */
export async function medianOf(
  rounds: number,
  fn: () => Promise<number> | number,
): Promise<number> {
  const values: number[] = [];
  for (let round = 0; round < rounds; round++) values.push(await fn());
  return median(values);
}

/**
 * Microseconds per unit, wall and CPU (user + system of the whole process, every thread; CPU
 * excludes waiting for the disk and the scheduler, so it moves less with the machine's load).
 */
export interface Figures {
  wall: number;
  cpu: number;
}

/** Runs `fn` once and returns its wall and CPU microseconds per unit (`units` of work in it). */
export async function measure(
  units: number,
  fn: () => Promise<unknown> | unknown,
): Promise<Figures> {
  const cpu = process.cpuUsage();
  const wall = await timeMicros(fn);
  const used = process.cpuUsage(cpu);
  return { wall: wall / units, cpu: (used.user + used.system) / units };
}

/** The median wall and the median CPU of several measurements. */
export function medianFigures(figures: readonly Figures[]): Figures {
  return { wall: median(figures.map((f) => f.wall)), cpu: median(figures.map((f) => f.cpu)) };
}

/** Microseconds elapsed while running `fn`. */
export async function timeMicros(fn: () => Promise<unknown> | unknown): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1000;
}

/** The advantage of Keel over the peer, as "peer is N times slower" (or N times less throughput). */
export function ratioOf(row: Comparison): number | undefined {
  if (row.peer === undefined) return undefined;
  return row.higherIsBetter ? row.keel / row.peer : row.peer / row.keel;
}

function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (value >= 100) return value.toFixed(0);
  if (value >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

/** Prints an aligned table of comparisons under a title. */
export function printTable(title: string, rows: readonly Comparison[]): void {
  const header = ["benchmark", "unit", "keel", "peer", "peer value", "ratio", "target", "ok"];
  const body = rows.map((row) => {
    const ratio = ratioOf(row);
    return [
      row.name,
      row.unit,
      formatNumber(row.keel),
      row.peerName,
      row.peer === undefined ? "-" : formatNumber(row.peer),
      ratio === undefined ? "-" : `${formatNumber(ratio)}x`,
      row.target === undefined ? "-" : `${row.target}x`,
      row.target === undefined || ratio === undefined ? "-" : ratio >= row.target ? "yes" : "NO",
    ];
  });
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...body.map((line) => (line[column] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join("  ");
  console.log(`\n## ${title}\n`);
  console.log(line(header));
  console.log(widths.map((width) => "-".repeat(width)).join("  "));
  for (const cells of body) console.log(line(cells));
}

/**
 * Runs `run` until it has used `cpuMicros` of CPU time (and at least twice), so that what is
 * measured next runs code the optimising JIT has compiled. CPU time, not wall time: on a loaded
 * machine 300 ms of wall time may be a tenth of that on the CPU, a few runs still half
 * interpreted (the chain on SQLite read 85 µs of CPU a step after such a warm-up, 41–49 after
 * more rounds, at load ~24).
 */
export async function warmUp(run: () => Promise<unknown>, cpuMicros = 300_000): Promise<void> {
  const start = process.cpuUsage();
  for (let runs = 0; ; runs++) {
    const used = process.cpuUsage(start);
    if (runs >= 2 && used.user + used.system >= cpuMicros) return;
    await run();
  }
}

/**
 * `warmUp`, then on until the CPU a run takes stops falling: the best of the last `window` runs
 * is no better (by 3%) than the best of the `window` before, or `maxRuns` ran. A long code path
 * reaches its steady state late: Keel's chain on Postgres (engine, saver and pg, ~300 µs of CPU
 * a step at first, on V8's compiler threads as much as on the main one) took ~30 runs of 100
 * steps to settle near 50, where 300 ms of CPU is ~10 runs. The steady state is what a
 * long-lived process pays.
 */
export async function warmUntilSteady(
  run: () => Promise<unknown>,
  window = 5,
  maxRuns = 80,
): Promise<void> {
  await warmUp(run);
  const costs: number[] = [];
  for (let runs = 0; runs < maxRuns; runs++) {
    const start = process.cpuUsage();
    await run();
    const used = process.cpuUsage(start);
    costs.push(used.user + used.system);
    if (costs.length < 2 * window) continue;
    const last = Math.min(...costs.slice(-window));
    const before = Math.min(...costs.slice(-2 * window, -window));
    if (last >= before * 0.97) return;
  }
}
