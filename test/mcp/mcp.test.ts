import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capabilitySet, serveMcpHttp } from "../../src/mcp/index.js";
import { GovernedRuntime } from "../../src/runtime/index.js";
import { openStore, type Store } from "../../src/store/index.js";
import { referenceCases } from "../memory/reference.js";
import { governedTools, oneCallGraph } from "../runtime/support/governed.js";
import { checkBadArguments, checkEveryTool, gitRepo, parse, proposeQueueing } from "./mcp.case.js";

const REFERENCE = referenceCases("mcp_tools_v3.3.6.json") as unknown as {
  id: string;
  input_schema: { properties: Record<string, unknown>; required?: string[] };
}[];

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
    gitRepo(dir);
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
    await checkEveryTool(client, { database: "sqlite", propose: () => proposeQueueing(store) });
  });

  it("refuses bad arguments as MCP errors and writes nothing", async () => {
    await checkBadArguments(client);
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

describe("Keel's approval and run tools over MCP, on a real governed run", () => {
  it("lists a run's pending approval, approves it with the approvals capability and shows the run", async () => {
    const dir = mkdtempSync(join(tmpdir(), "keel-mcp-approvals-"));
    const store = await openStore({ db: join(dir, "keel.db"), backupBeforeMigrate: false });
    const served = await serveMcpHttp(store, {
      port: 0,
      root: dir,
      capabilities: capabilitySet(["approvals"]),
    });
    const client = new Client({ name: "keel-test", version: "1.0.0" });
    try {
      const world = { refunds: [], emails: [], failRefunds: 0, crashAfterRefund: false };
      const runtime = new GovernedRuntime({ store, tools: governedTools(world) });
      const graph = oneCallGraph(runtime, "email.send", () => ({ to: "ops", body: "deploy" }));
      const started = await runtime.start({ graph, input: {}, autonomy: "A2", risk: "high" });
      const approvalId = started.waitingFor[0]?.approval_id ?? "";
      expect(approvalId).not.toBe("");
      await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
      const call = async (name: string, args: Record<string, unknown> = {}) =>
        parse(await client.callTool({ name, arguments: args }));

      const pending = await call("list_pending_approvals");
      expect((pending.approvals as { approval_id: string }[]).map((a) => a.approval_id)).toEqual([
        approvalId,
      ]);
      // The approval's own capability is still required of the person deciding.
      const lacking = await call("decide_approval", {
        approval_id: approvalId,
        decision: "approve",
        by: "ana",
      });
      expect(lacking.status).not.toBe("success");
      const decided = await call("decide_approval", {
        approval_id: approvalId,
        decision: "approve",
        by: "ana",
        capabilities: ["approve:email.send"],
      });
      expect(decided).toMatchObject({
        status: "success",
        approval: { approval_id: approvalId, status: "approved" },
      });
      expect((await call("list_pending_approvals")).approvals).toEqual([]);
      const shown = await call("show_run", { run_id: started.run.id });
      expect(shown).toMatchObject({ status: "success", run: { id: started.run.id } });
      expect((shown.steps as { run_id: string }[]).length).toBeGreaterThan(0);
      expect(world.emails).toEqual([]);
    } finally {
      await client.close();
      await served.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("keel mcp over stdio (a child process, the SDK's own client)", () => {
  it("runs every tool, refuses bad arguments and a tool without its capability", async () => {
    const dir = mkdtempSync(join(tmpdir(), "keel-mcp-stdio-"));
    gitRepo(dir);
    const client = new Client({ name: "keel-test", version: "1.0.0" });
    // The test's own connection to the server's database, for the one write no tool makes.
    const store = await openStore({ db: join(dir, "keel.db"), backupBeforeMigrate: false });
    try {
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [
            "--import",
            import.meta.resolve("tsx"),
            join(import.meta.dirname, "../../src/cli/run.ts"),
            "mcp",
            "--db",
            join(dir, "keel.db"),
            "--allow",
            "purge",
          ],
          cwd: dir,
          stderr: "pipe",
        }),
      );
      await checkEveryTool(client, { database: "sqlite", propose: () => proposeQueueing(store) });
      await checkBadArguments(client);
      expect(
        parse(
          await client.callTool({
            name: "decide_approval",
            arguments: { approval_id: "a", decision: "approve", by: "ana" },
          }),
        ).message,
      ).toBe("Capability 'approvals' is required for this operation.");
    } finally {
      await client.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
