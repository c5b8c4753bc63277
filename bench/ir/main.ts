/**
 * bench/ir: validating and compiling a 5,000-node IR document (target under 100 ms), and
 * rule-routed transitions on the seed's triage graph (target at least 20,000 per second with
 * durability off; the durable figure on SQLite is reported). There is no peer, so the peer
 * columns stay empty, except for the graph engine's share (LangGraph.js).
 *
 * "validate + compile" is everything a run needs before its first step: validation (which parses
 * every rule's conditions), compiling (which builds the rules into the rule engine) and the graph
 * hash. Times of the document work are CPU milliseconds of this process (the machine is shared).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as langgraph from "@langchain/langgraph";
import { SqliteSaver } from "../../src/checkpoint/index.js";
import * as keelGraph from "../../src/graph/index.js";
import { compileDocument, dumps, graphHash, validate } from "../../src/ir/index.js";
import { RuleEngine } from "../../src/rules/index.js";
import { openStore } from "../../src/store/index.js";
import { type Comparison, medianOf, printTable, timeMicros } from "../lib/report.js";
import { syntheticDocument } from "./document.js";

const SIZE = 5_000;
const ROUNDS = 15;
const TARGET_MS = 100;
const TARGET_PER_SECOND = 20_000;

const doc = syntheticDocument(SIZE);
const text = JSON.stringify(doc);
if (validate(text).length > 0) throw new Error("the synthetic document must be valid");
const synthetic = { packs: { "pack.routing": { source: "", version: "1.0.0" } } };
await compileDocument(text, synthetic);

/** CPU milliseconds of this process while `fn` runs (less sensitive to the shared machine). */
const cpuMs = async (fn: () => unknown) => {
  const start = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
};
const ms = async (fn: () => unknown, rounds = ROUNDS) => medianOf(rounds, () => cpuMs(fn));
const row = (name: string, unit: string, keel: number, higherIsBetter = false): Comparison => ({
  name,
  unit,
  keel,
  peer: undefined,
  peerName: "-",
  higherIsBetter,
});

const validateMs = await ms(() => validate(text));
const compileMs = await ms(async () => (await compileDocument(text, synthetic)).graphHash, 5);
// Where compiling goes: the rule engine defining the document's rules (parsing and building its
// match network), at two sizes to show how it scales.
const defineRules = (count: number) => () => {
  const engine = new RuleEngine();
  for (const [index, rule] of (syntheticDocument(count + 1).rules ?? []).entries()) {
    engine.defineRule({ name: rule.id, salience: count - index, when: rule.when ?? "" });
  }
};
const define500 = await ms(defineRules(500), 5);
const define5000 = await ms(defineRules(SIZE - 1), 3);
// The engine's share: a 5,000-node chain built and compiled with the StateGraph API, against
// LangGraph.js building and compiling the same graph.
type ChainApi = Pick<typeof keelGraph, "Annotation" | "StateGraph" | "START" | "END">;
const chain = (api: ChainApi) => () => {
  const State = api.Annotation.Root({ n: api.Annotation<number>() });
  // biome-ignore lint/suspicious/noExplicitAny: one builder for two libraries' generic types.
  const graph: any = new api.StateGraph(State);
  for (let i = 0; i < SIZE; i++) graph.addNode(`step_${i}`, () => ({}));
  graph.addEdge(api.START, "step_0");
  for (let i = 1; i < SIZE; i++) graph.addEdge(`step_${i - 1}`, `step_${i}`);
  graph.addEdge(`step_${SIZE - 1}`, api.END);
  return graph.compile();
};
const keelChain = chain(keelGraph);
const peerChain = chain(langgraph as unknown as ChainApi);
for (let i = 0; i < 2; i++) {
  keelChain();
  peerChain();
}

const rows: Comparison[] = [
  row(`validate ${SIZE}-node document (JSON text, rules parsed), CPU`, "ms", validateMs),
  row(`validate + compile + graph hash, ${SIZE} nodes and rules, CPU`, "ms", compileMs),
  row("  of which: rule engine defines 4,999 rules, CPU", "ms", define5000),
  row("  (rule engine defines 500 rules, CPU)", "ms", define500),
  {
    name: `StateGraph build + compile, ${SIZE}-node chain, CPU`,
    unit: "ms",
    keel: await ms(keelChain),
    peer: await ms(peerChain, 5),
    peerName: "langgraph",
  },
  row(`dumps ${SIZE}-node document, CPU`, "ms", await ms(() => dumps(doc))),
  row(`graph hash ${SIZE}-node document, CPU`, "ms", await ms(() => graphHash(doc))),
];

// Rule-routed transitions: each triage run makes 3 (node_a -> node_b by rule.escalate, then
// two fall-throughs), every one after evaluating the rules on the mirrored state.
const triage = readFileSync(new URL("../../examples/triage.json", import.meta.url), "utf8");
const options = {
  nodeKinds: { dspy: () => () => ({}) },
  packs: { "pack.bosun.routing": { source: "", version: "1.0.0" } },
};
const RUNS = 2_000;
const perSecond = async (invoke: (i: number) => Promise<unknown>, runs: number) => {
  for (let i = 0; i < 50; i++) await invoke(-i - 1);
  const micros = await timeMicros(async () => {
    for (let i = 0; i < runs; i++) await invoke(i);
  });
  return (runs * 3) / (micros / 1e6);
};
const memory = await compileDocument(triage, options);
const inMemory = await medianOf(5, () =>
  perSecond(() => memory.graph.invoke({ message: "m", severity: 5 }), RUNS),
);
rows.push(row("rule-routed transitions, durability off", "/s", inMemory, true));

const workdir = mkdtempSync(join(tmpdir(), "keel-bench-ir-"));
const store = await openStore({ db: join(workdir, "ir.db"), backupBeforeMigrate: false });
try {
  const durable = await compileDocument(triage, {
    ...options,
    checkpointer: SqliteSaver.fromStore(store),
  });
  let round = 0;
  const onSqlite = await medianOf(3, () => {
    round++;
    return perSecond(
      (i) =>
        durable.graph.invoke(
          { message: "m", severity: 5 },
          { configurable: { thread_id: `r${round}-${i}` } },
        ),
      300,
    );
  });
  rows.push(row("rule-routed transitions, SQLite durable", "/s", onSqlite, true));
} finally {
  await store.close();
  rmSync(workdir, { recursive: true, force: true });
}

printTable(
  `IR: ${SIZE}-node document (${(text.length / 1024).toFixed(0)} KiB), triage transitions`,
  rows,
);
console.log(
  `\nvalidate + compile + graph hash: ${compileMs.toFixed(1)} ms CPU (target < ${TARGET_MS} ms: ${compileMs < TARGET_MS ? "ok" : "MISSED"}); the rule engine's share: ${define5000.toFixed(0)} ms for 4,999 rules, ${define500.toFixed(0)} ms for 500 (${(define5000 / define500).toFixed(1)}x for 10x the rules)`,
);
console.log(
  `transitions, durability off: ${inMemory.toFixed(0)}/s (target >= ${TARGET_PER_SECOND}: ${inMemory >= TARGET_PER_SECOND ? "ok" : "MISSED"})`,
);
