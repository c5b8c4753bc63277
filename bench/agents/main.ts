/**
 * `npm run bench agents`: Keel's `createReactAgent` against LangGraph.js's in the same process,
 * same fake model (instant, no I/O), same LangChain tool.
 *
 * - Per tool round, 10 rounds per run: the whole round, and the loop's overhead — the round less
 *   its floor, the same model and tool invocations made directly (both agents pay them: the
 *   chat model's and the tool's own LangChain machinery). No checkpointer, then each library's
 *   SQLite saver at equal settings (WAL, synchronous=NORMAL, wal_autocheckpoint 10,000) in each durability mode both
 *   libraries name alike: `sync` (Keel's default: a step is committed before the next starts)
 *   and `async` (LangGraph.js's default: the next step does not wait for the write).
 * - The SQLite floor of those rounds' commits: Keel's rows written again by bare statements in
 *   the same transactions (commit-floor.ts), what the table layout alone costs a round.
 * - A governed tool call's ledger cost on SQLite against its floor (ledger.ts).
 * - Storage: a 500-message conversation (125 turns of question, tool call, tool answer, answer)
 *   on each library's SQLite saver; database bytes after a WAL checkpoint.
 *
 * `KEEL_BENCH=loop,storage,ledger` (any of them, comma-separated) runs only those parts: the
 * ledger alone runs in a heap the agent rounds have not grown.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { createReactAgent as lgCreateReactAgent } from "@langchain/langgraph/prebuilt";
import { SqliteSaver as LgSqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import { z } from "zod";
import { createReactAgent } from "../../src/agents/index.js";
import { SqliteSaver } from "../../src/checkpoint/index.js";
import { walCheckpointerFor } from "../../src/store/dialects/sqlite/wal-checkpointer.js";
import { noteSqliteWrites, openStore } from "../../src/store/index.js";
import {
  type Comparison,
  type Figures,
  measure,
  medianFigures,
  printTable,
  warmUntilSteady,
} from "../lib/report.js";
import { commitFloor } from "./commit-floor.js";
import { RoundsModel } from "./fake-model.js";
import { ledgerCost } from "./ledger.js";

const ROUNDS = 10;
const RUNS_PER_ROUND = 20;
const MEASURED_ROUNDS = 7;
const TURNS = 125;
const PARTS = new Set((process.env.KEEL_BENCH ?? "loop,storage,ledger").split(","));

const add = tool(({ a, b }: { a: number; b: number }) => String(a + b), {
  name: "add",
  description: "Adds two numbers.",
  schema: z.object({ a: z.number(), b: z.number() }),
});
const model = new RoundsModel(ROUNDS);
const workdir = mkdtempSync(join(tmpdir(), "keel-bench-agents-"));

interface Agent {
  invoke(input: unknown, config?: Record<string, unknown>): Promise<unknown>;
}
let thread = 0;
const input = () => ({ messages: [new HumanMessage("count to ten")] });
type Durability = "sync" | "async";
async function runAgent(agent: Agent, durability?: Durability): Promise<void> {
  thread += 1;
  await agent.invoke(input(), {
    recursionLimit: 100,
    ...(durability ? { durability, configurable: { thread_id: `t${thread}` } } : {}),
  });
}

/** The floor of one round: the model's and the tool's invocations, made directly. */
async function floorRound(): Promise<void> {
  const messages = [new HumanMessage("count to ten")];
  const call = (await model.invoke(messages)) as AIMessageLike;
  const toolCall = call.tool_calls?.[0];
  if (toolCall) await add.invoke({ ...toolCall, type: "tool_call" });
}
interface AIMessageLike {
  tool_calls?: Array<{ id?: string; name: string; args: Record<string, unknown> }>;
}

async function alternate(
  contenders: Array<() => Promise<void>>,
  unitsPerRun: number,
): Promise<Figures[]> {
  const figures: Figures[][] = contenders.map(() => []);
  // Each warmed until its CPU a run stops falling: Keel's path with a saver (engine, saver,
  // SQLite) and LangGraph.js's reach their optimised code after different numbers of runs.
  for (const run of contenders) await warmUntilSteady(run);
  for (let round = 0; round < MEASURED_ROUNDS; round += 1) {
    for (const [index, run] of contenders.entries()) {
      figures[index]!.push(
        await measure(RUNS_PER_ROUND * unitsPerRun, async () => {
          for (let i = 0; i < RUNS_PER_ROUND; i += 1) await run();
        }),
      );
    }
  }
  return figures.map(medianFigures);
}

/**
 * LangGraph.js's database at the settings Keel's store opens with (sqlite-backend.ts): WAL,
 * synchronous=NORMAL, and the WAL checkpointed every 10,000 pages rather than SQLite's default
 * 1,000 (which made LangGraph.js's side checkpoint, and fsync, about 4x as often).
 */
function equalSettings(db: Database.Database): void {
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("wal_autocheckpoint = 10000");
}

async function sqliteAgents() {
  const store = await openStore({
    db: join(workdir, "keel.db"),
    synchronous: "NORMAL",
    backupBeforeMigrate: false,
  });
  const db = new Database(join(workdir, "langgraph.db"));
  equalSettings(db);
  // Context, not a target: LangGraph.js's saver on a database given the background checkpointer
  // Keel's store runs under NORMAL (docs/store.md), told of its writes after each run.
  const helpedPath = join(workdir, "langgraph-helped.db");
  const helped = new Database(helpedPath);
  equalSettings(helped);
  const checkpointer = walCheckpointerFor(helped);
  const helpedAgent = lgCreateReactAgent({
    llm: model,
    tools: [add],
    checkpointer: new LgSqliteSaver(helped),
  });
  return {
    keel: createReactAgent({
      llm: model,
      tools: [add],
      checkpointer: SqliteSaver.fromStore(store),
    }),
    langgraph: lgCreateReactAgent({
      llm: model,
      tools: [add],
      checkpointer: new LgSqliteSaver(db),
    }),
    langgraphHelped: {
      invoke: async (input: unknown, config?: Record<string, unknown>) => {
        const result = await helpedAgent.invoke(input as never, config as never);
        noteSqliteWrites(helped);
        return result;
      },
    } satisfies Agent,
    close: async () => {
      await store.close();
      db.close();
      await checkpointer?.close();
      helped.close();
    },
  };
}

const wall: Comparison[] = [];
const cpu: Comparison[] = [];
const overhead: Comparison[] = [];
if (PARTS.has("loop")) {
  const keel = createReactAgent({ llm: model, tools: [add] });
  const langgraph = lgCreateReactAgent({ llm: model, tools: [add] });
  const sqlite = await sqliteAgents();
  const [k, l, ks, ls, ka, la, floor, lh] = await alternate(
    [
      () => runAgent(keel),
      () => runAgent(langgraph),
      () => runAgent(sqlite.keel, "sync"),
      () => runAgent(sqlite.langgraph, "sync"),
      () => runAgent(sqlite.keel, "async"),
      () => runAgent(sqlite.langgraph, "async"),
      async () => {
        for (let i = 0; i < ROUNDS; i += 1) await floorRound();
      },
      () => runAgent(sqlite.langgraphHelped, "sync"),
    ],
    ROUNDS,
  );
  await sqlite.close();
  // `target`: the 10x on the overhead tables; none on a context row.
  const row = (name: string, keelF: Figures, peerF: Figures, peerName: string, target?: number) => {
    wall.push({ name, unit: "µs/round", keel: keelF.wall, peer: peerF.wall, peerName });
    cpu.push({ name, unit: "µs/round", keel: keelF.cpu, peer: peerF.cpu, peerName, target });
    overhead.push({
      name,
      unit: "µs/round",
      keel: Math.max(keelF.wall - floor!.wall, 0.01),
      peer: peerF.wall - floor!.wall,
      peerName,
      target,
    });
  };
  row("agent round, no checkpointer", k!, l!, "langgraph", 10);
  row("agent round, SQLite saver, durability sync", ks!, ls!, "langgraph-checkpoint-sqlite", 10);
  row("agent round, SQLite saver, durability async", ka!, la!, "langgraph-checkpoint-sqlite", 10);
  row(
    "the same sync, peer's database given Keel's background checkpointer (context)",
    ks!,
    lh!,
    "langgraph-checkpoint-sqlite",
  );
  printTable(
    `agents: wall time per tool round, ${ROUNDS} rounds per run (median of ${MEASURED_ROUNDS} alternating rounds)`,
    wall,
  );
  printTable(
    "agents: CPU time per tool round, same rounds",
    cpu.map((r) => ({ ...r, target: undefined })),
  );
  console.log(
    `\nfloor (the model's and the tool's invocations alone): ${floor!.wall.toFixed(1)} µs/round wall, ${floor!.cpu.toFixed(1)} µs CPU`,
  );
  printTable(
    "agents: loop overhead per round = round - floor (wall; the issue's targets)",
    overhead,
  );
  printTable(
    "agents: loop overhead per round = round - floor (CPU, every thread)",
    cpu.map((r) => ({
      ...r,
      keel: Math.max(r.keel - floor!.cpu, 0.01),
      peer: (r.peer ?? 0) - floor!.cpu,
    })),
  );
  // What the SQLite rows alone cost: the overhead above less this is the saver's JavaScript and
  // the engine's (commit-floor.ts).
  const commits = await commitFloor(
    workdir,
    (saver) => {
      const agent = createReactAgent({ llm: model, tools: [add], checkpointer: saver });
      return (threadId, durability) =>
        agent.invoke(input(), {
          recursionLimit: 100,
          durability,
          configurable: { thread_id: threadId },
        });
    },
    ["sync", "async"],
    ROUNDS,
  );
  for (const [mode, figures] of commits)
    console.log(
      `\nSQLite floor of a round's commits, durability ${mode} (Keel's rows by bare statements, same transactions): ${figures.cpu.toFixed(1)} µs/round CPU, ${figures.wall.toFixed(1)} wall`,
    );
}

if (PARTS.has("storage")) {
  // A 500-message conversation: 125 turns of human, AI tool call, tool answer, AI answer.
  const turnModel = new RoundsModel(1);
  const store = await openStore({
    db: join(workdir, "keel-conv.db"),
    synchronous: "NORMAL",
    backupBeforeMigrate: false,
  });
  const db = new Database(join(workdir, "lg-conv.db"));
  equalSettings(db);
  const agents = [
    createReactAgent({ llm: turnModel, tools: [add], checkpointer: SqliteSaver.fromStore(store) }),
    lgCreateReactAgent({ llm: turnModel, tools: [add], checkpointer: new LgSqliteSaver(db) }),
  ] as Agent[];
  let messages = 0;
  for (const agent of agents) {
    for (let turn = 0; turn < TURNS; turn += 1) {
      const result = (await agent.invoke(
        { messages: [new HumanMessage(`question ${turn}`)] },
        { configurable: { thread_id: "conversation" } },
      )) as { messages: unknown[] };
      messages = result.messages.length;
    }
  }
  if (store.native.dialect === "sqlite") store.native.database.pragma("wal_checkpoint(TRUNCATE)");
  await store.close();
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  const kib = (name: string) => statSync(join(workdir, `${name}.db`)).size / 1024;
  printTable(
    `agents: storage of a ${messages}-message conversation (SQLite, after a WAL checkpoint)`,
    [
      {
        name: `${TURNS} turns, ${messages} messages`,
        unit: "KiB",
        keel: kib("keel-conv"),
        peer: kib("lg-conv"),
        peerName: "langgraph-checkpoint-sqlite",
        target: 10,
      },
    ],
  );
}
if (PARTS.has("ledger")) {
  const { cost, floor } = await ledgerCost(workdir);
  printTable("agents: a governed tool call's ledger cost per call on SQLite, against its floor", [
    {
      name: "ledger cost (ledgered − direct call), wall",
      unit: "µs",
      keel: cost.wall,
      peer: floor.wall,
      peerName: "floor: same rows, bare statements, same commits",
    },
    {
      name: "ledger cost (ledgered − direct call), CPU",
      unit: "µs",
      keel: cost.cpu,
      peer: floor.cpu,
      peerName: "floor: same rows, bare statements, same commits",
    },
  ]);
  const verdict = (figure: "wall" | "cpu") => {
    const ratio = cost[figure] / floor[figure];
    return `${figure} ${ratio.toFixed(2)}x the floor (target ≤ 1.2x: ${ratio <= 1.2 ? "met" : "NOT met"})`;
  };
  console.log(`\nledger cost: ${verdict("wall")}; ${verdict("cpu")}`);
}
rmSync(workdir, { recursive: true, force: true });
