/**
 * The end-to-end example as a test, on SQLite and Postgres: `examples/governed-refund.ts start`
 * ingests and routes a refund and pauses its run on an approval; the approval's how_to_approve,
 * followed literally through the real CLI, decides it and lets the run finish; `keel audit
 * <trace_id> --json` tells the story on one trace.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { keelInProcess } from "../support/cli.js";
import { postgresAvailable } from "../support/postgres.js";
import { createMigratedDatabase } from "../support/templates.js";

const EXAMPLE = fileURLToPath(new URL("../../examples/governed-refund.ts", import.meta.url));
const ROUTING = fileURLToPath(new URL("../../examples/governed-routing.json", import.meta.url));
const TSX = import.meta.resolve("tsx");

type Report = {
  identical: boolean;
  firstDivergence: { at: string } | null;
  diff: {
    at: string;
    same: boolean;
    original: Record<string, unknown> | null;
    replay: Record<string, unknown> | null;
  }[];
  stoppedBy: { code: string } | null;
};

/** A TypeScript entry point in a child process, in `cwd`, without the caller's KEEL_ settings. */
function run(cwd: string, script: string, args: string[]) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith("KEEL_")),
  ) as Record<string, string>;
  const result = spawnSync(process.execPath, ["--import", TSX, script, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...env, HOME: cwd, NO_COLOR: "1" },
  });
  const last = result.stdout.trim().split("\n").pop() ?? "";
  return {
    status: result.status,
    stderr: result.stderr,
    json: (last.startsWith("{") ? JSON.parse(last) : {}) as Record<string, unknown>,
  };
}

/** Words of a command line as a POSIX shell splits them (quotes, no expansions). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  const pattern = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (const match of line.matchAll(pattern)) words.push(match[1] ?? match[2] ?? match[3] ?? "");
  return words;
}

/** The types of `events` in order, with `expected` appearing as a subsequence. */
function inOrder(types: string[], expected: string[]): string[] {
  let at = 0;
  const missing: string[] = [];
  for (const type of expected) {
    const found = types.indexOf(type, at);
    if (found < 0) missing.push(type);
    else at = found + 1;
  }
  return missing;
}

const STORY = [
  "event.ingested",
  "route.decided",
  "task.created",
  "task.started",
  "step.started",
  "gate.approval_requested",
  "step.paused",
  "task.paused",
  "gate.approved",
  "task.resumed",
  "step.resumed",
  "tool_call.attempted",
  "tool_call.succeeded",
  "step.succeeded",
  "step.started",
  "gate.preview",
  "tool_call.attempted",
  "tool_call.succeeded",
  "step.succeeded",
  "task.succeeded",
];

function exampleStory(
  dialect: string,
  database: () => Promise<{ db: string; drop(): Promise<void> }>,
) {
  it(`${dialect}: routed, paused on an approval, approved through the CLI, finished; keel audit tells the story`, async () => {
    const dir = mkdtempSync(join(tmpdir(), `keel-example-${dialect}-`));
    const { db, drop } = await database();
    try {
      const started = run(dir, EXAMPLE, ["start", "--db", db]);
      expect(started.status, started.stderr).toBe(0);
      const { runId, traceId, approvalId } = started.json as Record<string, string>;
      expect(approvalId).toBeTruthy();
      // The real CLI, in this process (a child each would cost seconds of CPU apiece).
      const keel = async (...args: string[]) => {
        const done = await keelInProcess([...args, "--db", db, "--json"], {
          cwd: dir,
          env: { HOME: dir },
        });
        return { status: done.exitCode, stderr: done.stderr, json: done.json };
      };

      // The approval says how to approve it; followed literally (with a reason), it works.
      const shown = await keel("approvals", "show", approvalId as string);
      const approval = shown.json.approval as { how_to_approve: string; status: string };
      expect(approval.status).toBe("pending");
      const command = shellWords(approval.how_to_approve.split("(or:")[0] ?? "");
      expect(command.slice(0, 4)).toEqual(["keel", "approvals", "approve", approvalId]);
      const argv = command.slice(1).map((word) => (word === "<why>" ? "checked the order" : word));
      const approved = await keel(...argv, "--by", "ana");
      expect(approved.status, approved.stderr).toBe(0);
      expect(approved.json.approval).toMatchObject({ status: "approved" });
      expect(approved.json.run).toMatchObject({ id: runId, continued: true, status: "succeeded" });

      const story = await keel("audit", traceId as string);
      expect(story.status, story.stderr).toBe(0);
      const events = story.json.events as { type: string; trace_id: string }[];
      expect(new Set(events.map((e) => e.trace_id))).toEqual(new Set([traceId]));
      expect(
        inOrder(
          events.map((e) => e.type),
          STORY,
        ),
      ).toEqual([]);
      // The refund happened exactly once.
      // Beside the SQLite file; in the project's .keel for Postgres.
      const log = join(db.startsWith("postgres") ? join(dir, ".keel") : dirname(db), "refunds.log");
      expect(existsSync(log)).toBe(true);
      expect(readFileSync(log, "utf8").trim().split("\n")).toHaveLength(1);
      expect((await keel("audit", "verify")).json).toMatchObject({ ok: true });

      // keel runs replay: every call answered from the ledger, so nothing is refunded again.
      const strict = await keel("runs", "replay", runId as string);
      expect(strict.status, strict.stderr).toBe(0);
      expect(strict.json.report).toMatchObject({ mode: "strict", identical: true });
      // --counterfactual with nothing changed: the same transitions, reported side by side.
      const same = await keel("runs", "replay", runId as string, "--counterfactual");
      expect(same.status, same.stderr).toBe(0);
      const bySame = same.json.report as Report;
      expect(bySame).toMatchObject({
        mode: "counterfactual",
        identical: true,
        firstDivergence: null,
      });
      expect(bySame.diff.length).toBeGreaterThan(1);
      expect(bySame.diff.every((row) => row.same)).toBe(true);
      // An unknown run: exit 5, said as JSON.
      const unknown = await keel("runs", "replay", "0192f5e0-7c1a-7000-8000-0000000000ff");
      expect(unknown.status).toBe(5);
      expect(unknown.json).toMatchObject({ ok: false });
      // Changed rules: without the large-refund rule the work routes at medium risk.
      const routing = JSON.parse(readFileSync(ROUTING, "utf8")) as { rules: { id: string }[] };
      routing.rules = routing.rules.filter((rule) => rule.id !== "large-refund");
      const changed = join(dir, "routing-without-large-refunds.json");
      writeFileSync(changed, JSON.stringify(routing));
      const rules = await keel("runs", "replay", runId as string, "--routing", changed);
      expect(rules.status, rules.stderr).toBe(1);
      const byRules = rules.json.report as Report;
      expect(byRules).toMatchObject({ mode: "counterfactual", identical: false, stoppedBy: null });
      expect(byRules.firstDivergence).toMatchObject({
        at: "route",
        original: { risk_level: "high", matched_rule_ids: ["refund", "large-refund"] },
        replay: { risk_level: "medium", matched_rule_ids: ["refund"] },
      });
      // At medium risk the run's gates are looser: the refund no longer waits for a person and
      // the email is no longer previewed; the calls themselves are the same.
      expect(byRules.diff.filter((row) => !row.same).map((row) => row.at)).toEqual([
        "route",
        "refund#1",
        "notify#1",
      ]);
      expect(
        byRules.diff.slice(1).map((row) => [row.at, row.original?.gates, row.replay?.gates]),
      ).toEqual([
        ["refund#1", ["0=confirm:approved"], ["0=allow"]],
        ["notify#1", ["0=preview"], ["0=allow"]],
      ]);
      for (const row of byRules.diff.slice(1))
        expect(row.replay?.calls).toEqual(row.original?.calls);
      // A changed input asks the payment provider something else: the replay stops there.
      const input = await keel(
        "runs",
        "replay",
        runId as string,
        "--input",
        '{"order":"1043","amount":250}',
      );
      expect(input.status, input.stderr).toBe(1);
      const byInput = input.json.report as Report;
      expect(byInput.firstDivergence?.at).toBe("refund#1");
      expect(byInput.stoppedBy?.code).toBe("REPLAY_DIVERGED");
      expect(readFileSync(log, "utf8").trim().split("\n")).toHaveLength(1);
    } finally {
      await drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

const postgres = await postgresAvailable();

// Each step starts a child process from source; on a loaded 2-core machine that takes seconds.
describe("the governed refund example, end to end", { timeout: 300_000 }, () => {
  exampleStory("sqlite", async () => {
    const dir = mkdtempSync(join(tmpdir(), "keel-example-db-"));
    return {
      db: join(dir, "keel.db"),
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  });
  if (postgres) {
    exampleStory("postgres", async () => {
      const database = await createMigratedDatabase("governed_example");
      return { db: database.url, drop: database.drop };
    });
  }
});
