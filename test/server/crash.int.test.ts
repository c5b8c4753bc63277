import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, describe, expect, it } from "vitest";
import { TokenStore } from "../../src/server/auth/token-store.js";
import { openStore } from "../../src/store/index.js";
import { FIXTURES } from "./support.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "keel-serve-crash-"));
const db = join(dir, "keel.db");
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

/** `keel serve` in a child process (real process, real loopback); resolves to its URL. */
function serve(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      join(ROOT, "src/cli/run.ts"),
      "serve",
      "--port",
      "0",
      "--json",
      "--no-open",
      "--db",
      db,
      "--config",
      join(FIXTURES, "keel.json"),
    ],
    {
      cwd: ROOT,
      env: { ...process.env, KEEL_TEST_STEP_MS: "150", KEEL_LOG_LEVEL: "silent" },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) resolve({ child, url: (JSON.parse(line) as { url: string }).url });
    });
    child.once("exit", (code) => reject(new Error(`keel serve exited with ${code}: ${out}`)));
  });
}

describe("keel serve killed with kill -9 mid-run", () => {
  it("takes the run up at the next start: resumed from its last step, never lost or repeated", async () => {
    const store = await openStore({ db });
    const { secret } = await new TokenStore(store).create({
      name: "t",
      capabilities: ["read", "runs"],
    });
    await store.close();

    const first = await serve();
    const client = new Client({ apiUrl: first.url, apiKey: secret });
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "slow", { input: { n: 0 } });
    // Wait until a few steps are durable, then kill the server without warning.
    for (;;) {
      const state = await client.threads.getState(thread.thread_id);
      if (((state.values as { n?: number }).n ?? 0) >= 3) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    first.child.kill("SIGKILL");
    await new Promise((r) => first.child.once("exit", r));

    const second = await serve();
    const again = new Client({ apiUrl: second.url, apiKey: secret });
    const values = (await again.runs.join(thread.thread_id, run.run_id)) as { n: number };
    // A step run twice would add twice: exactly ten ticks means none was lost or repeated.
    expect(values.n).toBe(10);
    expect((await again.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
    const history = await again.threads.getHistory(thread.thread_id, { limit: 100 });
    // One checkpoint per step: the resumed server wrote none of the first server's steps again.
    const steps = history.map((s) => s.metadata?.step);
    expect(new Set(steps).size).toBe(steps.length);
    expect(steps).toContain(10);
    second.child.kill("SIGTERM");
    await new Promise((r) => second.child.once("exit", r));
  }, 60_000);
});
