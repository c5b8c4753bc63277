/**
 * `npm run bench serve`: a no-op graph run through the HTTP API (create + wait), 32 concurrent
 * clients on loopback, against `keel serve` (a child process on SQLite) and, when it is
 * installed, the LangGraph.js dev server (`@langchain/langgraph-cli`'s in-memory server) with
 * the same one-node graph written for @langchain/langgraph. Also the time from a streamed run's
 * request to its first SSE event. Runs/s and p50/p99 latency; the issue's target is p50 ≤ 2 ms
 * on SQLite and a first SSE event ≤ 5 ms after the run starts.
 *
 * The peer is looked up in KEEL_BENCH_LANGGRAPH_DIR (a folder where
 * `npm install @langchain/langgraph-cli @langchain/langgraph` was run), else it is skipped and
 * the reason printed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { TokenStore } from "../../src/server/auth/token-store.js";
import { openStore } from "../../src/store/index.js";
import { startServeProcess } from "../../test/support/serve-process.js";
import { firstEvent, type LoadFigures, runLoad } from "./load.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CLIENTS = 32;
const PER_CLIENT = Number(process.env.KEEL_BENCH_RUNS_PER_CLIENT ?? 25);

async function keelServer(
  dir: string,
): Promise<{ child: ChildProcess; url: string; token: string }> {
  const db = join(dir, "keel.db");
  const store = await openStore({ db });
  const { secret } = await new TokenStore(store).create({
    name: "bench",
    capabilities: ["read", "runs"],
  });
  await store.close();
  const { child, url } = await startServeProcess({
    db,
    config: join(ROOT, "bench/serve/keel.json"),
  });
  return { child, url, token: secret };
}

async function langgraphServer(): Promise<{ child: ChildProcess; url: string } | string> {
  const peerDir = process.env.KEEL_BENCH_LANGGRAPH_DIR;
  if (!peerDir)
    return "not run: set KEEL_BENCH_LANGGRAPH_DIR to a folder with @langchain/langgraph-cli installed";
  const bin = join(peerDir, "node_modules/.bin/langgraphjs");
  if (!existsSync(bin))
    return `not run: ${bin} is missing (npm install @langchain/langgraph-cli there)`;
  writeFileSync(
    join(peerDir, "bench-graph.mjs"),
    `import { Annotation, START, StateGraph } from "@langchain/langgraph";
const State = Annotation.Root({ x: Annotation({ reducer: (_a, b) => b, default: () => 0 }) });
export const noop = new StateGraph(State).addNode("noop", () => ({})).addEdge(START, "noop").compile();
`,
  );
  writeFileSync(
    join(peerDir, "langgraph.json"),
    JSON.stringify({
      node_version: "20",
      graphs: { noop: "./bench-graph.mjs:noop" },
      dependencies: ["."],
    }),
  );
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn(
    bin,
    [
      "dev",
      "--port",
      String(port),
      "--host",
      "127.0.0.1",
      "--no-browser",
      "--n-jobs-per-worker",
      String(CLIENTS),
      "--config",
      join(peerDir, "langgraph.json"),
    ],
    {
      cwd: peerDir,
      env: { ...process.env, LANGSMITH_TRACING: "false", LANGCHAIN_TRACING_V2: "false" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`${url}/ok`)).ok) return { child, url };
    } catch {
      // Not up yet.
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill("SIGKILL");
  return "not run: the LangGraph.js dev server did not answer within 120 s";
}

/**
 * The CPU time a process and its descendants have used, in ms (Linux /proc; NaN elsewhere). The
 * server's CPU per run is the figure a loaded machine distorts least: wall times queue behind
 * other processes. (The LangGraph.js dev server runs its graphs in child processes.)
 */
function cpuMs(root: number | undefined): number {
  try {
    const stats = new Map<number, { ppid: number; ms: number }>();
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const fields = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
        // ppid, utime and stime (fields 4, 14 and 15 of the whole line); ticks of 10 ms.
        stats.set(Number(entry), {
          ppid: Number(fields[1]),
          ms: (Number(fields[11]) + Number(fields[12])) * 10,
        });
      } catch {
        // The process ended meanwhile.
      }
    }
    let total = 0;
    for (const [pid, stat] of stats) {
      for (let p: number | undefined = pid; p !== undefined && p > 1; p = stats.get(p)?.ppid) {
        if (p === root) {
          total += stat.ms;
          break;
        }
      }
    }
    return root === undefined ? Number.NaN : total;
  } catch {
    return Number.NaN;
  }
}

function row(name: string, f: LoadFigures, cpu: number): string {
  return `${name.padEnd(26)} ${String(f.runs).padStart(5)}  ${f.runsPerSecond.toFixed(0).padStart(7)}  ${f.p50.toFixed(2).padStart(8)}  ${f.p99.toFixed(2).padStart(8)}  ${(cpu / f.runs).toFixed(2).padStart(9)}`;
}

console.log(
  `\n## no-op run, create + wait over HTTP (${CLIENTS} concurrent clients × ${PER_CLIENT} runs)\n`,
);
console.log(
  `${"server".padEnd(26)} ${"runs".padStart(5)}  ${"runs/s".padStart(7)}  ${"p50 ms".padStart(8)}  ${"p99 ms".padStart(8)}  ${"CPU ms/run".padStart(9)}`,
);

/** Measures one server: 32 clients, 1 client, the first SSE event. */
async function measureServer(
  name: string,
  url: string,
  headers: Record<string, string>,
  pid: number | undefined,
): Promise<string> {
  const load = { url, headers, assistant: "noop" };
  await runLoad({ ...load, clients: CLIENTS, perClient: 5 }); // warm-up
  let cpu = cpuMs(pid);
  const many = await runLoad({ ...load, clients: CLIENTS, perClient: PER_CLIENT });
  console.log(row(name, many, cpuMs(pid) - cpu));
  cpu = cpuMs(pid);
  const one = await runLoad({ ...load, clients: 1, perClient: 100 });
  console.log(row(`${name}, 1 client`, one, cpuMs(pid) - cpu));
  const sse = await firstEvent({ ...load, rounds: 30 });
  return `${name}: first SSE event ${sse.first.toFixed(2)} ms after the request, first values event ${sse.values.toFixed(2)} ms (median of 30)`;
}

const dir = mkdtempSync(join(tmpdir(), "keel-bench-serve-"));
const notes: string[] = [];
try {
  const keel = await keelServer(dir);
  try {
    notes.push(
      await measureServer(
        "keel serve (SQLite)",
        keel.url,
        { "content-type": "application/json", authorization: `Bearer ${keel.token}` },
        keel.child.pid,
      ),
    );
  } finally {
    keel.child.kill("SIGTERM");
  }
  const peer = await langgraphServer();
  if (typeof peer === "string") notes.push(`LangGraph.js dev server: ${peer}`);
  else {
    try {
      notes.push(
        await measureServer(
          "langgraphjs dev (memory)",
          peer.url,
          { "content-type": "application/json" },
          peer.child.pid,
        ),
      );
    } catch (error) {
      notes.push(
        `LangGraph.js dev server: failed under the load: ${(error as Error).message} (${String((error as Error).cause ?? "")})`,
      );
    } finally {
      peer.child.kill("SIGTERM");
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log("");
for (const line of notes) console.log(line);
console.log("targets: p50 ≤ 2 ms (SQLite, no-op run); first SSE event ≤ 5 ms after run start");
console.log(
  `load average: ${loadavg()
    .map((n) => n.toFixed(1))
    .join(", ")}`,
);
