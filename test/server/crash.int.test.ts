import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, describe, expect, it } from "vitest";
import { TokenStore } from "../../src/server/auth/token-store.js";
import { openStore } from "../../src/store/index.js";
import { startServeProcess } from "../support/serve-process.js";
import { FIXTURES } from "./support.js";

const dir = mkdtempSync(join(tmpdir(), "keel-serve-crash-"));
const db = join(dir, "keel.db");
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

/** `keel serve` in a child process on this suite's database; kept to be killed at the end. */
async function serve(): Promise<{ child: ChildProcess; url: string }> {
  const started = startServeProcess({
    db,
    config: join(FIXTURES, "keel.json"),
    env: { KEEL_TEST_STEP_MS: "150", KEEL_LOG_LEVEL: "silent" },
  });
  const server = await started;
  children.push(server.child);
  return server;
}

describe("keel serve killed with kill -9 mid-run", () => {
  it("takes the run up at the next start (resumed from its last step, never lost or repeated), and an interrupted thread resumes with a Command", async () => {
    const store = await openStore({ db });
    const { secret } = await new TokenStore(store).create({
      name: "t",
      capabilities: ["read", "runs"],
    });
    await store.close();

    const first = await serve();
    const client = new Client({ apiUrl: first.url, apiKey: secret });
    // A thread left at an interrupt before the kill: resumed with a Command after it.
    const asking = await client.threads.create();
    await client.runs.wait(asking.thread_id, "agent", {
      input: { messages: [{ type: "human", content: "what is x?", id: "h1" }] },
    });
    expect((await client.threads.get(asking.thread_id)).status).toBe("interrupted");
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

    expect((await again.threads.get(asking.thread_id)).status).toBe("interrupted");
    const state = await again.threads.getState(asking.thread_id);
    expect(state.tasks[0]?.interrupts[0]?.value).toEqual({ question: "send the answer?" });
    const answered = (await again.runs.wait(asking.thread_id, "agent", {
      command: { resume: "yes" },
    })) as { approved: string; messages: Array<{ content: string }> };
    expect(answered.approved).toBe("yes");
    expect(answered.messages.at(-1)?.content).toBe("the answer is 42");
    expect((await again.threads.get(asking.thread_id)).status).toBe("idle");
    second.child.kill("SIGTERM");
    await new Promise((r) => second.child.once("exit", r));
  }, 60_000);
});
