import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capabilitySet, serveMcpHttp } from "../../src/mcp/index.js";
import { openStore, type Store } from "../../src/store/index.js";
import { referenceCases } from "../memory/reference.js";

const REFERENCE = referenceCases("mcp_tools_v3.3.6.json") as unknown as {
  id: string;
  input_schema: { properties: Record<string, unknown>; required?: string[] };
}[];

type CallResult = { content: { type: string; text: string }[]; isError?: boolean };
const parse = (result: unknown) => {
  const text = (result as CallResult).content[0]?.text ?? "";
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return { text };
  }
};

describe("keel mcp over Streamable HTTP (the SDK's own client)", () => {
  const dir = mkdtempSync(join(tmpdir(), "keel-mcp-"));
  let store: Store;
  let served: Awaited<ReturnType<typeof serveMcpHttp>>;
  let guarded: Awaited<ReturnType<typeof serveMcpHttp>>;
  let client: Client;
  const call = async (name: string, args: Record<string, unknown> = {}) =>
    parse(await client.callTool({ name, arguments: args }));

  beforeAll(async () => {
    store = await openStore({ db: join(dir, "keel.db"), backupBeforeMigrate: false });
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
    served = await serveMcpHttp(store, {
      port: 0,
      root: dir,
      capabilities: capabilitySet(["purge"]),
    });
    guarded = await serveMcpHttp(store, { port: 0, root: dir, apiKey: "s3cret" });
    client = new Client({ name: "keel-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
  });
  afterAll(async () => {
    await client.close();
    await served.close();
    await guarded.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists the reference's 17 tools with its input schema properties, plus Keel's approval and run tools", async () => {
    const { tools } = await client.listTools();
    expect(served.url.startsWith("http://127.0.0.1:")).toBe(true);
    for (const reference of REFERENCE) {
      const tool = tools.find((t) => t.name === reference.id);
      expect(tool, reference.id).toBeDefined();
      expect(Object.keys(tool?.inputSchema.properties ?? {}).sort(), reference.id).toEqual(
        Object.keys(reference.input_schema.properties).sort(),
      );
      expect([...(tool?.inputSchema.required ?? [])].sort(), reference.id).toEqual(
        [...(reference.input_schema.required ?? [])].sort(),
      );
    }
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(["list_pending_approvals", "decide_approval", "show_run"]),
    );
  });

  it("runs every tool with the reference's output shapes", async () => {
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
      health: { database: "sqlite" },
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
  });

  it("refuses bad arguments as MCP errors and writes nothing", async () => {
    const before = (await call("get_memory_stats")).stats;
    const bad = await client
      .callTool({ name: "record_decision", arguments: { title: 42, target: "database" } })
      .catch((error: Error) => ({ thrown: error.message }));
    const rejected =
      "thrown" in bad
        ? bad.thrown
        : (bad as CallResult).isError
          ? (bad as CallResult).content[0]?.text
          : "";
    expect(rejected).toMatch(/title|rationale|Invalid/i);
    expect((await call("get_memory_stats")).stats).toEqual(before);
  });

  it("refuses a tool without its capability (purge is off by default, approvals too), and an HTTP request without the API key", async () => {
    const other = new Client({ name: "keel-test", version: "1.0.0" });
    await other.connect(
      new StreamableHTTPClientTransport(new URL(guarded.url), {
        requestInit: { headers: { "X-API-Key": "s3cret" } },
      }),
    );
    try {
      const recorded = parse(
        await other.callTool({
          name: "record_decision",
          arguments: { title: "Keep", target: "keepers", rationale: "It must stay here" },
        }),
      );
      const refused = parse(
        await other.callTool({
          name: "forget_memory",
          arguments: { decision_id: recorded.decision_id },
        }),
      );
      expect(refused).toEqual({
        status: "error",
        message: "Capability 'purge' is required for this operation.",
      });
      expect(
        parse(await other.callTool({ name: "export_memory_bundle", arguments: {} })).message,
      ).toBe("Capability 'purge' is required for this operation.");
      expect(
        parse(
          await other.callTool({
            name: "decide_approval",
            arguments: { approval_id: "a", decision: "approve", by: "ana" },
          }),
        ).message,
      ).toBe("Capability 'approvals' is required for this operation.");
      expect((await call("search_decisions", { query: "keepers" })).results).toHaveLength(1);
    } finally {
      await other.close();
    }
    const anonymous = new Client({ name: "keel-test", version: "1.0.0" });
    await expect(
      anonymous.connect(new StreamableHTTPClientTransport(new URL(guarded.url))),
    ).rejects.toThrow();
  });
});

describe("keel mcp over stdio (a child process, the SDK's own client)", () => {
  it("answers tools", async () => {
    const dir = mkdtempSync(join(tmpdir(), "keel-mcp-stdio-"));
    const client = new Client({ name: "keel-test", version: "1.0.0" });
    try {
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [
            "--import",
            "tsx",
            join(import.meta.dirname, "../../src/cli/run.ts"),
            "mcp",
            "--db",
            join(dir, "keel.db"),
          ],
          stderr: "pipe",
        }),
      );
      const recorded = parse(
        await client.callTool({
          name: "record_decision",
          arguments: {
            title: "Use PostgreSQL",
            target: "database",
            rationale: "ACID and JSONB support",
          },
        }),
      );
      expect(recorded.status).toBe("success");
      const found = parse(
        await client.callTool({ name: "search_decisions", arguments: { query: "postgresql" } }),
      );
      expect((found.results as { id: string }[])[0]?.id).toBe(recorded.decision_id);
      expect(
        parse(
          await client.callTool({
            name: "forget_memory",
            arguments: { decision_id: recorded.decision_id },
          }),
        ).message,
      ).toBe("Capability 'purge' is required for this operation.");
    } finally {
      await client.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
