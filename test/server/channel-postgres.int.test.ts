/**
 * The change watcher on Postgres: a job queued and a scan stored straight on the database (as
 * `keel job submit` and `keel scan` in another process would) reach a WebSocket subscriber, and
 * the catalog and jobs APIs answer from the same database.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { builtInRegistry, scanScope } from "../../src/catalog/index.js";
import { openJobsContext, submitJob } from "../../src/jobs/index.js";
import type { ServerEvent } from "../../src/server/events.js";
import { postgresAvailable } from "../support/postgres.js";
import { createMigratedDatabase } from "../support/templates.js";
import { startTestServer, type TestServer } from "./support.js";

const enabled = await postgresAvailable();
let t: TestServer;
let drop: (() => Promise<void>) | undefined;

describe.skipIf(!enabled)("the event channel and the services' APIs on Postgres", () => {
  beforeAll(async () => {
    const database = await createMigratedDatabase("server_channel");
    drop = () => database.drop();
    t = await startTestServer({ db: database.url, extra: { watchIntervalMs: 100 } });
    mkdirSync(join(t.dir, ".claude/skills/deploy"), { recursive: true });
    writeFileSync(
      join(t.dir, ".claude/skills/deploy/SKILL.md"),
      "---\nname: deploy\ndescription: Ship it.\n---\nRun /review.\n",
    );
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await drop?.();
  });

  it("pushes a scan and a job made outside the server, and serves them", async () => {
    const ws = new WebSocket(`${t.server.url.replace("http", "ws")}/ws`, {
      headers: { authorization: `Bearer ${t.tokens.read}` },
    });
    const events: ServerEvent[] = [];
    ws.on("message", (data) => events.push(JSON.parse(data.toString()) as ServerEvent));
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    const wait = async (match: (e: ServerEvent) => boolean) => {
      for (let i = 0; i < 100 && !events.some(match); i++)
        await new Promise((r) => setTimeout(r, 100));
      const found = events.find(match);
      if (!found) throw new Error(`not pushed; got ${events.map((e) => e.type).join(", ")}`);
      return found;
    };

    await scanScope(t.store, { root: t.dir, registry: builtInRegistry() });
    await wait((e) => e.type === "scan.changed");
    const job = await submitJob(await openJobsContext(t.store), {
      actionId: "skill-summarizer",
      nodePath: ".claude/skills/deploy/SKILL.md",
    });
    const queued = await wait((e) => e.type === "job.queued");
    expect(queued.jobId).toBe(job.id);

    const headers = { authorization: `Bearer ${t.tokens.jobs}` };
    const nodes = await (await fetch(`${t.server.url}/api/nodes`, { headers })).json();
    expect((nodes as { nodes: unknown[] }).nodes).toHaveLength(1);
    const cancel = await fetch(`${t.server.url}/api/jobs/${job.id}/cancel`, {
      method: "POST",
      headers,
    });
    expect(cancel.status).toBe(200);
    const failed = await wait((e) => e.type === "job.failed");
    expect([failed.jobId, failed.data.reason]).toEqual([job.id, "user-cancelled"]);
    ws.close();
  });
});
