/**
 * What every transport and database must answer, driven by the MCP SDK's own client: every
 * tool with the reference's output shapes, and bad arguments refused as MCP errors with nothing
 * written. test/mcp/mcp.test.ts runs it over Streamable HTTP and stdio on SQLite,
 * test/mcp/mcp-postgres.int.test.ts over HTTP on Postgres.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { expect } from "vitest";
import { DecisionMemory } from "../../src/memory/index.js";
import type { Store } from "../../src/store/index.js";

/** A git repository `repo` with one commit, in `dir` (the server's directory). */
export function gitRepo(dir: string): void {
  execFileSync("git", ["init", "-q", join(dir, "repo")]);
  execFileSync("git", [
    "-C",
    join(dir, "repo"),
    "-c",
    "user.name=T",
    "-c",
    "user.email=t@e.x",
    "commit",
    "-q",
    "--allow-empty",
    "-m",
    "feat(core): start",
  ]);
}

/** Writes a draft proposal on target `queueing` (no MCP tool proposes) and returns its id. */
export async function proposeQueueing(store: Store): Promise<string> {
  const proposal = await new DecisionMemory(store).propose({
    title: "Use a queue",
    target: "queueing",
    rationale: "Jobs pile up at peak hours",
    confidence: 0.8,
  });
  return proposal.id;
}

type CallResult = { content: { type: string; text: string }[]; isError?: boolean };

/** A tool's JSON answer (or its text, when it is not JSON). */
export function parse(result: unknown): Record<string, unknown> {
  const text = (result as CallResult).content[0]?.text ?? "";
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { text };
  }
}

/** Calls one tool and parses its answer. */
export function caller(client: Client) {
  return async (name: string, args: Record<string, unknown> = {}) =>
    parse(await client.callTool({ name, arguments: args }));
}

/**
 * Runs every tool once against an empty memory whose server has `purge` allowed and a git
 * repository `repo` (one commit) in its directory. `propose` writes a draft proposal on target
 * `queueing` into the same database (no MCP tool proposes) and returns its id.
 */
export async function checkEveryTool(
  client: Client,
  options: { database: "sqlite" | "postgres"; propose: () => Promise<string> },
): Promise<void> {
  const call = caller(client);
  const recorded = await call("record_decision", {
    title: "Use PostgreSQL",
    target: "database",
    rationale: "ACID and JSONB support",
  });
  expect(recorded).toMatchObject({ status: "success", message: null });
  const id = recorded.decision_id as string;
  const conflict = await call("record_decision", {
    title: "Use MySQL",
    target: "database",
    rationale: "The team knows it well",
  });
  expect(conflict).toMatchObject({ status: "error", decision_id: null, code: "MEMORY_CONFLICT" });
  expect(conflict.message).toContain(id);
  const short = await call("record_decision", {
    title: "T",
    target: "db",
    rationale: "0123456789",
  });
  expect(short).toMatchObject({ status: "error", code: "MEMORY_INVALID" });
  const replaced = await call("supersede_decision", {
    title: "Use MySQL",
    target: "database",
    rationale: "The team knows MySQL well",
    old_decision_ids: [id],
  });
  expect(replaced.status).toBe("success");
  const search = await call("search_decisions", { query: 'mysql "* NEAR --' });
  expect(search.status).toBe("success");
  expect(Object.keys((search.results as object[])[0] ?? {})).toEqual([
    "id",
    "score",
    "status",
    "preview",
    "kind",
  ]);
  expect(await call("sync_git_history", { repo_path: "repo", limit: 5 })).toEqual({
    status: "success",
    message: null,
    indexed_commits: 1,
  });
  expect(await call("sync_git_history", { repo_path: "/etc" })).toMatchObject({
    status: "error",
  });
  expect(await call("record_interaction", { prompt: "which db?", response: "mysql" })).toEqual({
    status: "success",
  });
  const stats = await call("get_memory_stats");
  expect(stats).toMatchObject({ status: "success", stats: { records: 2 } });
  const events = (await call("search_decisions", { query: "mysql" })).results as { id: string }[];
  expect(events.length).toBeGreaterThan(0);
  expect(
    await call("link_interaction_to_decision", {
      event_id: 1,
      decision_id: replaced.decision_id,
    }),
  ).toEqual({ status: "success", message: `Linked event 1 to ${replaced.decision_id}` });
  expect((await call("visualize_graph", { target: "database" })).mermaid).toContain(
    "-->|superseded by|",
  );
  expect((await call("bootstrap_project_context", { path: "." })).text).toContain(
    "Top-level entries",
  );
  expect(await call("get_environment_health")).toMatchObject({
    status: "success",
    health: { database: options.database },
  });
  expect(((await call("get_audit_logs", { limit: 3 })).logs as string[]).length).toBe(3);
  const exported = await call("export_memory_bundle", { output_filename: "bundle.json" });
  expect(existsSync(exported.export_path as string)).toBe(true);
  expect((await call("get_api_specification")).methods).toHaveLength(20);
  expect((await call("get_relevant_context", { prompt: "mysql database" })).text).toMatch(
    /^\[KEEL KNOWLEDGE BASE ACTIVE\]\n/,
  );
  expect(await call("repair_language")).toMatchObject({ status: "error" });
  expect(await call("accept_proposal", { proposal_id: "nope" })).toMatchObject({
    status: "error",
    code: "MEMORY_NOT_FOUND",
  });
  const proposal = await options.propose();
  const accepted = await call("accept_proposal", { proposal_id: proposal });
  expect(accepted).toMatchObject({ status: "success", message: "Accepted" });
  const decided = await call("search_decisions", { query: "queueing", mode: "strict" });
  expect((decided.results as { id: string }[]).map((r) => r.id)).toContain(accepted.decision_id);
  expect(await call("accept_proposal", { proposal_id: proposal })).toMatchObject({
    status: "error",
    code: "MEMORY_INVARIANT",
  });
  expect(await call("forget_memory", { decision_id: replaced.decision_id })).toMatchObject({
    status: "error",
    code: "MEMORY_INVARIANT",
  });
  expect(await call("forget_memory", { decision_id: id })).toEqual({
    status: "success",
    message: `Forgotten ${id}`,
  });
  expect(await call("list_pending_approvals")).toEqual({ status: "success", approvals: [] });
  expect(await call("show_run", { run_id: "nope" })).toMatchObject({ status: "error" });
}

/**
 * Arguments that break a tool's input schema (a number for a string, a required field
 * missing) are MCP errors, and nothing is written.
 */
export async function checkBadArguments(client: Client): Promise<void> {
  const call = caller(client);
  const before = (await call("get_memory_stats")).stats;
  const attempts = [
    { name: "record_decision", arguments: { title: 42, target: "database" } },
    { name: "supersede_decision", arguments: { title: "x", old_decision_ids: "not-a-list" } },
    { name: "search_decisions", arguments: { query: "x", limit: "ten" } },
    { name: "link_interaction_to_decision", arguments: { event_id: "one" } },
  ];
  for (const attempt of attempts) {
    const bad = await client.callTool(attempt).catch((error: Error) => ({ thrown: error.message }));
    const rejected =
      "thrown" in bad
        ? bad.thrown
        : (bad as CallResult).isError
          ? (bad as CallResult).content[0]?.text
          : "";
    expect(rejected, attempt.name).toMatch(/invalid|expected|required/i);
  }
  expect((await call("get_memory_stats")).stats).toEqual(before);
}
