/**
 * bench/ir: validating and compiling a 5,000-node IR document (target under 100 ms), and
 * rule-routed transitions on the seed's triage graph (target at least 20,000 per second with
 * durability off; the durable figure on SQLite is reported). There is no peer, so the peer
 * columns stay empty, except for the graph engine's share (LangGraph.js).
 *
 * "validate + compile" is everything compileDocument does: validation (which parses and checks
 * every rule's conditions, once), compiling onto the graph engine, and the graph hash. The rule
 * engine's network is built by the first run that needs it when validation's check covers every
 * rule (docs/ir.md), so that cost is a row of its own: "first run's rule engine". Times of the
 * document work are CPU milliseconds of this process (the machine is shared).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as langgraph from "@langchain/langgraph";
import { SqliteSaver } from "../../src/checkpoint/index.js";
import * as keelGraph from "../../src/graph/index.js";
import {
  compileDocument,
  compileWhen,
  dumps,
  graphHash,
  structuralHash,
  validate,
} from "../../src/ir/index.js";
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
const compileMs = await ms(async () => (await compileDocument(text, synthetic)).graphHash, 7);
// The same at IR 1.1.0 as Stargraph writes it (mapping sugar, template facts), both hashes.
const text11 = JSON.stringify(syntheticDocument(SIZE, "1.1.0"));
if (validate(text11).length > 0) throw new Error("the 1.1.0 synthetic document must be valid");
const compile11Ms = await ms(async () => {
  const compiled = await compileDocument(text11, synthetic);
  return [compiled.graphHash, structuralHash(compiled.document)];
}, 7);
// The first run of a freshly compiled document builds the rule engine (every rule's network):
// its first three steps, stopped there by the recursion limit.
const firstRunMs = await medianOf(5, async () => {
  const compiled = await compileDocument(text, synthetic);
  return cpuMs(() =>
    compiled.graph.invoke({ message: "m", severity: 5 }, { recursionLimit: 3 }).catch(() => null),
  );
});
// The rule engine defining the document's rules (parsing and building the match network) at two
// sizes, to show that defining N rules is linear in N.
const definitions = (count: number) =>
  (syntheticDocument(count + 1).rules ?? []).map((rule, index) => ({
    name: rule.id,
    salience: count - index,
    when: compileWhen(rule.when ?? ""),
  }));
const defineRules = (count: number) => {
  const defs = definitions(count);
  return () => {
    const engine = new RuleEngine();
    for (const def of defs) engine.defineRule(def);
  };
};
const define1000 = await ms(defineRules(1_000), 7);
const define5000 = await ms(defineRules(5_000), 5);
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
  row(`first run, 3 steps (builds the ${SIZE - 1}-rule engine), CPU`, "ms", firstRunMs),
  row("rule engine defines 1,000 rules, CPU", "ms", define1000),
  row("rule engine defines 5,000 rules, CPU", "ms", define5000),
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
  `\nvalidate + compile + graph hash: ${compileMs.toFixed(1)} ms CPU (target < ${TARGET_MS} ms: ${compileMs < TARGET_MS ? "ok" : "MISSED"}); the rule engine defines 5,000 rules in ${define5000.toFixed(0)} ms, 1,000 in ${define1000.toFixed(0)} ms (${(define5000 / define1000).toFixed(1)}x for 5x the rules)`,
);
console.log(
  `IR 1.1.0 (Stargraph's form): validate + compile + both hashes: ${compile11Ms.toFixed(1)} ms CPU (target < ${TARGET_MS} ms: ${compile11Ms < TARGET_MS ? "ok" : "MISSED"})`,
);
console.log(
  `transitions, durability off: ${inMemory.toFixed(0)}/s (target >= ${TARGET_PER_SECOND}: ${inMemory >= TARGET_PER_SECOND ? "ok" : "MISSED"})`,
);
