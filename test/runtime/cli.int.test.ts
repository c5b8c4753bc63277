import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { keelInProcess } from "../support/cli.js";

const dir = mkdtempSync(join(tmpdir(), "keel-runtime-cli-"));
const db = join(dir, "keel.db");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Result {
  status: number | null;
  stderr: string;
  json: Record<string, unknown>;
}

/**
 * The real CLI on this file's database, answering in JSON, run in this process
 * (test/support/cli.ts) from the file's folder with HOME there.
 */
async function keel(...args: string[]): Promise<Result> {
  const result = await keelInProcess([...args, "--db", db, "--json"], {
    cwd: dir,
    env: { HOME: dir },
  });
  return { status: result.exitCode, stderr: result.stderr, json: result.json };
}

type Problem = { path: string; code: string; message: string };

describe("runtime CLI: bad input is refused with every problem, and audited", {
  timeout: 120_000,
}, () => {
  it("keel ingest rejects an event failing the contract with every problem (exit 1), audited on its trace", async () => {
    const rejected = await keel(
      "ingest",
      "--text",
      "refund order 7",
      "--message-id",
      "m-1",
      "--connector",
      "",
    );
    expect(rejected.status, rejected.stderr).toBe(1);
    expect(rejected.json).toMatchObject({ ok: false, status: "rejected" });
    const problems = rejected.json.problems as Problem[];
    // As a webhook message the connector is also the actor: both fields it empties are reported,
    // not just the first one found.
    expect(problems.map((p) => p.path).sort()).toEqual(["/actor/actor_id", "/source/connector_id"]);
    for (const problem of problems) expect(problem.code).toBe("string_too_short");
    const trace = await keel("audit", String(rejected.json.traceId));
    expect(trace.status, trace.stderr).toBe(0);
    const events = trace.json.events as { type: string; outcome: string }[];
    expect(events.map((e) => [e.type, e.outcome])).toEqual([["event.rejected", "failure"]]);
  });

  it("keel ingest refuses a routing configuration with every problem (exit 2) before storing anything", async () => {
    const routing = join(dir, "bad-routing.json");
    writeFileSync(
      routing,
      JSON.stringify({
        fast_paths: [{ intent: "", handler: "timers", risk_level: "severe" }],
        rules: [{ id: "r1", when: "(intent", risk_level: "high" }],
        default_risk: "none",
      }),
    );
    const refused = await keel("ingest", "--text", "hello", "--routing", routing);
    expect(refused.status, refused.stderr).toBe(2);
    const error = refused.json.error as { code: string; details: { problems: Problem[] } };
    expect(error.code).toBe("ROUTING_INVALID");
    const paths = error.details.problems.map((p) => p.path);
    expect(paths).toEqual(expect.arrayContaining(["/fast_paths/0/risk_level", "/default_risk"]));
    expect(paths.length).toBeGreaterThanOrEqual(3);
    const search = await keel("audit", "search", "--type", "event.ingested");
    expect(search.json.events).toEqual([]);
  });

  it("refuses unknown flags' values and unknown records with the exit-code contract", async () => {
    expect((await keel("ingest", "--text", "x", "--channel", "pigeon")).status).toBe(2);
    expect((await keel("approvals", "list", "--status", "maybe")).status).toBe(2);
    expect((await keel("approvals", "show", "01a20271-0000-7000-8000-000000000000")).status).toBe(
      5,
    );
    const verify = await keel("audit", "verify");
    expect(verify.status, verify.stderr).toBe(0);
    expect(verify.json).toMatchObject({ ok: true });
  });
});
