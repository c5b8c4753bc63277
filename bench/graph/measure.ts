/**
 * Timing for the graph benchmark. The machine is shared and noisy, so Keel's and the peer's
 * rounds alternate (both see the same background load) and each figure is a median: after a
 * warm-up, every round builds fresh graphs, runs a full GC, then repeats runs until a minimum time
 * has passed and records the time per unit of work.
 */
import { type Figures, median, timeMicros } from "../lib/report.js";

export interface MeasureOptions {
  rounds: number;
  minRoundMicros: number;
  warmupMicros: number;
}

export const defaultMeasureOptions: MeasureOptions = {
  rounds: 7,
  minRoundMicros: 100_000,
  warmupMicros: 300_000,
};

/** A contender: builds a fresh graph and returns a function that does one run on it. */
export type Prepare = () => () => Promise<unknown>;

async function repeatFor(run: () => Promise<unknown>, minMicros: number): Promise<Figures> {
  let runs = 0;
  let wall = 0;
  const cpuBefore = process.cpuUsage();
  while (runs === 0 || wall < minMicros) {
    wall += await timeMicros(run);
    runs++;
  }
  const cpu = process.cpuUsage(cpuBefore);
  return { wall: wall / runs, cpu: (cpu.user + cpu.system) / runs };
}

/**
 * Median microseconds per unit for each contender, measured in alternating rounds. CPU time is
 * reported beside wall time because on a loaded machine wall time also counts time spent
 * descheduled; both figures come from the same rounds.
 */
export async function alternatingMicrosPerUnit(
  contenders: readonly Prepare[],
  unitsPerRun: number,
  options: MeasureOptions = defaultMeasureOptions,
): Promise<Figures[]> {
  for (const prepare of contenders) await repeatFor(prepare(), options.warmupMicros);
  const samples = contenders.map(() => ({ wall: [] as number[], cpu: [] as number[] }));
  for (let round = 0; round < options.rounds; round++) {
    for (const [index, prepare] of contenders.entries()) {
      const run = prepare();
      globalThis.gc?.();
      const figures = await repeatFor(run, options.minRoundMicros);
      samples[index]?.wall.push(figures.wall / unitsPerRun);
      samples[index]?.cpu.push(figures.cpu / unitsPerRun);
    }
  }
  return samples.map((sample) => ({ wall: median(sample.wall), cpu: median(sample.cpu) }));
}
