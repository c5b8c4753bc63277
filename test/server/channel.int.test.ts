/**
 * The push channel over WebSocket (`/ws`) and SSE (`/api/events`): run steps, approvals, job
 * events and scan changes, whether the change came through the API or straight from another
 * writer of the database (a CLI verb, a worker, a governed run).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { builtInRegistry, scanScope } from "../../src/catalog/index.js";
import { openJobsContext, submitJob } from "../../src/jobs/index.js";
import { loadGovernedApp } from "../../src/runtime/index.js";
import type { ServerEvent } from "../../src/server/events.js";
import { startTestServer, type TestServer } from "./support.js";

const APP = new URL("../../examples/governed-refund-app.ts", import.meta.url).href;
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ project: true, extra: { watchIntervalMs: 100 } });
  for (const [path, text] of Object.entries({
    ".claude/skills/deploy/SKILL.md":
      "---\nname: deploy\ndescription: Ship it.\n---\nRun /review.\n",
    ".claude/commands/review.md": "---\nname: review\ndescription: Review.\n---\nRead the diff.\n",
  })) {
    mkdirSync(join(t.dir, path, ".."), { recursive: true });
    writeFileSync(join(t.dir, path), text);
  }
});
afterAll(async () => {
  await t?.close();
});

/** A WebSocket client that keeps every event it receives, and waits for the one a test wants. */
async function channel(
  headers: Record<string, string> = { authorization: `Bearer ${t.tokens.read}` },
) {
  const ws = new WebSocket(`${t.server.url.replace("http", "ws")}/ws`, { headers });
  const events: ServerEvent[] = [];
  const waiters: Array<() => void> = [];
  ws.on("message", (data) => {
    events.push(JSON.parse(data.toString()) as ServerEvent);
    for (const wake of waiters.splice(0)) wake();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  const next = async (match: (e: ServerEvent) => boolean, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = events.find(match);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(`no such event among ${events.map((e) => e.type).join(", ")}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  };
  return { ws, events, next };
}

/** The status a refused handshake is answered with. */
function refusal(headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${t.server.url.replace("http", "ws")}/ws`, { headers });
    ws.on("unexpected-response", (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on("open", () => reject(new Error("the handshake was accepted")));
    ws.on("error", () => {});
  });
}

async function post(path: string, token: string, body?: unknown) {
  const response = await fetch(`${t.server.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return (await response.json()) as Record<string, { id: string }>;
}

describe("the WebSocket channel", () => {
  it("refuses a handshake without a token, without read, or from another origin; a plain GET gets 400", async () => {
    expect(await refusal({})).toBe(401);
    expect(await refusal({ authorization: `Bearer ${t.tokens.jobs.replace(/.$/, "x")}` })).toBe(
      401,
    );
    const { TokenStore } = await import("../../src/server/auth/token-store.js");
    const jobsOnly = (await new TokenStore(t.store).create({ name: "j", capabilities: ["jobs"] }))
      .secret;
    expect(await refusal({ authorization: `Bearer ${jobsOnly}` })).toBe(403);
    expect(
      await refusal({
        authorization: `Bearer ${t.tokens.read}`,
        origin: "http://evil.example",
      }),
    ).toBe(403);
    const plain = await fetch(`${t.server.url}/ws`, {
      headers: { authorization: `Bearer ${t.tokens.read}` },
    });
    expect(plain.status).toBe(400);
  });

  it("pushes job events whoever made the change, and scan changes", async () => {
    const { ws, events, next } = await channel();
    await next((e) => e.type === "ready");
    ws.send(JSON.stringify({ subscribe: ["job.", "scan."] }));
    await next((e) => e.type === "subscribed");

    // A scan made outside the server (here: straight on the database, as `keel scan` does).
    await scanScope(t.store, { root: t.dir, registry: builtInRegistry() });
    const scanned = await next((e) => e.type === "scan.changed");
    expect(scanned.data.scanned_at).toEqual(expect.any(Number));

    // Through the API: queued, then cancelled (failed as user-cancelled).
    const { job } = await post("/api/jobs", t.tokens.jobs, {
      action: "skill-summarizer",
      node: ".claude/skills/deploy/SKILL.md",
    });
    const queued = await next((e) => e.type === "job.queued" && e.jobId === job?.id);
    expect(queued.data).toMatchObject({ action: "skill-summarizer", status: "queued" });
    await post(`/api/jobs/${job?.id}/cancel`, t.tokens.jobs);
    const failed = await next((e) => e.type === "job.failed" && e.jobId === job?.id);
    expect(failed.data.reason).toBe("user-cancelled");

    // Straight on the database, as `keel job submit` in another process would.
    const other = await submitJob(await openJobsContext(t.store), {
      actionId: "skill-summarizer",
      nodePath: ".claude/commands/review.md",
    });
    await next((e) => e.type === "job.queued" && e.jobId === other.id);
    // Each change is pushed once, and the filter kept everything else out.
    await new Promise((r) => setTimeout(r, 300));
    expect(events.filter((e) => e.type === "job.queued" && e.jobId === job?.id)).toHaveLength(1);
    expect(
      events
        .filter((e) => !["ready", "subscribed"].includes(e.type))
        .map((e) => e.type.split(".")[0]),
    ).toEqual(expect.arrayContaining(["scan", "job"]));
    expect(
      events.every((e) => ["ready", "subscribed"].includes(e.type) || /^(job|scan)\./.test(e.type)),
    ).toBe(true);
    ws.close();
  });

  it("pushes run steps and approvals, and answers a bad message with an error frame", async () => {
    const { ws, events, next } = await channel();
    await next((e) => e.type === "ready");
    ws.send("not json");
    await next((e) => e.type === "error");

    const client = t.client();
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "noop", { input: {} });
    const finished = await next((e) => e.type === "run.finished");
    expect(finished.runId).toEqual(expect.any(String));
    expect(events.some((e) => e.type === "run.step" && e.runId === finished.runId)).toBe(true);

    // A governed run in this process (not through the API) asks for an approval.
    const { runtime, graph } = await loadGovernedApp(APP, t.store);
    const started = await runtime.start({
      graph,
      input: { order: "9", amount: 30 },
      autonomy: "A2",
      risk: "high",
      capabilities: ["payments:refund"],
      graphId: "refund-example",
      app: APP,
    });
    const requested = await next(
      (e) => e.type === "approval.requested" && e.runId === started.run.id,
    );
    const approved = await post(
      `/api/approvals/${requested.data.approval_id}/approve`,
      t.tokens.admin,
      { reason: "fine", resume: false },
    );
    expect(approved.ok).toBe(true);
    const decided = await next(
      (e) => e.type === "approval.approved" && e.data.approval_id === requested.data.approval_id,
    );
    expect(decided.data.by).toBe("admin");
    expect(
      events.filter(
        (e) => e.type === "approval.approved" && e.data.approval_id === requested.data.approval_id,
      ),
    ).toHaveLength(1);
    ws.close();
  }, 30_000);
});

describe("what other writers do", () => {
  it("pushes the status of runs this server does not execute, and approvals as they expire, once each", async () => {
    const { ws, events, next } = await channel();
    await next((e) => e.type === "ready");
    // A governed run of this process, not of the API: pending, running, paused at an approval.
    const { runtime, graph } = await loadGovernedApp(APP, t.store);
    const started = await runtime.start({
      graph,
      input: { order: "10", amount: 30 },
      autonomy: "A2",
      risk: "high",
      capabilities: ["payments:refund"],
      graphId: "refund-example",
      app: APP,
    });
    const paused = await next((e) => e.type === "run.paused" && e.runId === started.run.id);
    expect(paused.data.status).toBe("paused");
    // Approved through the API, which continues the run (to its next approval, then its end):
    // its end is said once.
    const decided = new Set<unknown>();
    for (;;) {
      const requested = await next(
        (e) =>
          (e.type === "approval.requested" &&
            e.runId === started.run.id &&
            !decided.has(e.data.approval_id)) ||
          (e.type === "run.finished" && e.runId === started.run.id),
      );
      if (requested.type === "run.finished") break;
      decided.add(requested.data.approval_id);
      await post(`/api/approvals/${requested.data.approval_id}/approve`, t.tokens.admin, {
        reason: "fine",
      });
    }
    const finished = await next((e) => e.type === "run.finished" && e.runId === started.run.id);
    expect(finished.data.status).toBe("succeeded");

    // A second run's approval expires with nobody reading it (no row moves): pushed all the same.
    const second = await runtime.start({
      graph,
      input: { order: "11", amount: 30 },
      autonomy: "A2",
      risk: "high",
      capabilities: ["payments:refund"],
      graphId: "refund-example",
      app: APP,
    });
    const asked = await next((e) => e.type === "approval.requested" && e.runId === second.run.id);
    await t.store.kysely
      .withTables<{ state_approvals: { id: string; expires_at: number } }>()
      .updateTable("state_approvals")
      .set({ expires_at: Date.now() + 200 })
      .where("id", "=", String(asked.data.approval_id))
      .execute();
    const expired = await next(
      (e) => e.type === "approval.expired" && e.data.approval_id === asked.data.approval_id,
    );
    expect(expired.runId).toBe(second.run.id);
    await new Promise((r) => setTimeout(r, 500));
    const once = (type: string, runId: string) =>
      events.filter((e) => e.type === type && e.runId === runId).length;
    expect(once("run.finished", started.run.id)).toBe(1);
    expect(once("approval.expired", second.run.id)).toBe(1);
    ws.close();
  }, 30_000);
});

describe("the SSE channel", () => {
  it("carries the same events as the WebSocket", async () => {
    const controller = new AbortController();
    const response = await fetch(`${t.server.url}/api/events`, {
      headers: { authorization: `Bearer ${t.tokens.read}` },
      signal: controller.signal,
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let text = "";
    const read = async (needle: string) => {
      while (!text.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) throw new Error("the stream ended");
        text += new TextDecoder().decode(value);
      }
    };
    await read("event: ready");
    const { job } = await post("/api/jobs", t.tokens.jobs, {
      action: "skill-summarizer",
      node: ".claude/skills/deploy/SKILL.md",
    });
    await read(`"jobId":"${job?.id}"`);
    expect(text).toContain('"type":"job.queued"');
    controller.abort();
  });
});
