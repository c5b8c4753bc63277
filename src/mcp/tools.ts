import { readdir, readFile, writeFile } from "node:fs/promises";
import { isAbsolute, relative, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { toKeelError, VERSION } from "../core/index.js";
import { DecisionMemory } from "../memory/index.js";
import { ApprovalService, AuditWriter } from "../runtime/index.js";
import type { Store } from "../store/index.js";
import { capabilitySet, type McpCapability } from "./capabilities.js";

/** Options of the MCP server. */
export interface MemoryMcpOptions {
  /** The capabilities granted (default: everything but purge and approvals). */
  capabilities?: ReadonlySet<McpCapability>;
  /** Paths a tool may read (sync, bootstrap) must be inside this directory (default: cwd). */
  root?: string;
  namespace?: string;
}

type Json = Record<string, unknown>;
const text = (value: Json | string) => ({
  content: [
    { type: "text" as const, text: typeof value === "string" ? value : JSON.stringify(value) },
  ],
});

/**
 * An MCP server exposing the decision memory under the reference's 17 tool names, input
 * schemas and output shapes (each tool answers with one JSON text), plus Keel's approval and
 * run tools. A tool outside the granted capabilities answers `{"status":"error","message":
 * "Capability '<name>' is required for this operation."}` and changes nothing.
 *
 * @example
 * const server = createMemoryMcpServer(store, { capabilities: capabilitySet(["purge"]) });
 * await server.connect(new StdioServerTransport());
 */
export function createMemoryMcpServer(store: Store, options: MemoryMcpOptions = {}): McpServer {
  const memory = new DecisionMemory(store, { namespace: options.namespace });
  const granted = options.capabilities ?? capabilitySet();
  const root = resolve(options.root ?? process.cwd());
  const server = new McpServer({ name: "keel-memory", version: VERSION });
  const specs: { name: string; description: string; capabilities: McpCapability[] }[] = [];

  const tool = <S extends z.ZodRawShape>(
    name: string,
    description: string,
    needs: McpCapability[],
    shape: S,
    handler: (args: z.infer<z.ZodObject<S>>) => Promise<Json | string>,
    onError: (message: string) => Json = (message) => ({ status: "error", message }),
  ) => {
    specs.push({ name, description, capabilities: needs });
    server.registerTool(name, { description, inputSchema: shape }, (async (
      args: z.infer<z.ZodObject<S>>,
    ) => {
      const missing = needs.find((capability) => !granted.has(capability));
      if (missing) return text(onError(`Capability '${missing}' is required for this operation.`));
      try {
        return text(await handler(args));
      } catch (error) {
        const keel = toKeelError(error);
        return text({
          ...onError(keel.message),
          code: keel.code,
          ...(keel.details ? { details: keel.details } : {}),
        });
      }
    }) as never);
  };

  const inside = (path: string) => {
    const full = resolve(root, path);
    const rel = relative(root, full);
    if (rel.startsWith("..") || isAbsolute(rel))
      throw new Error(`${path} is outside the server's directory ${root}.`);
    return full;
  };
  const decisionError = (message: string) => ({ status: "error", message, decision_id: null });
  const list = z.array(z.string()).nullable().default(null);

  tool(
    "record_decision",
    "Records a strategic decision into semantic memory.",
    ["propose"],
    {
      title: z.string(),
      target: z.string(),
      rationale: z.string(),
      consequences: list,
      namespace: z.string().default("default"),
    },
    async (a) => {
      const record = await memory.record({
        title: a.title,
        target: a.target,
        rationale: a.rationale,
        consequences: a.consequences ?? [],
        namespace: a.namespace,
        source: "agent",
      });
      return { status: "success", message: null, decision_id: record.id };
    },
    decisionError,
  );

  tool(
    "supersede_decision",
    "Replaces old decisions with a new one.",
    ["supersede"],
    {
      title: z.string(),
      target: z.string(),
      rationale: z.string(),
      old_decision_ids: z.array(z.string()),
      consequences: list,
      namespace: z.string().default("default"),
    },
    async (a) => {
      const record = await memory.supersede({
        ...a,
        consequences: a.consequences ?? [],
        source: "agent",
      });
      return { status: "success", message: null, decision_id: record.id };
    },
    decisionError,
  );

  tool(
    "search_decisions",
    "Keyword search for active decisions and rules. Mode can be 'strict', 'balanced', or 'audit'.",
    ["read"],
    {
      query: z.string(),
      limit: z.number().int().default(5),
      offset: z.number().int().default(0),
      namespace: z.string().default("default"),
      mode: z.string().default("balanced"),
    },
    async (a) => {
      const hits = await memory.search({
        query: a.query,
        limit: a.limit,
        offset: a.offset,
        namespace: a.namespace,
        mode: a.mode as "balanced",
      });
      return {
        status: "success",
        message: null,
        results: hits.map((h) => ({
          id: h.id,
          score: h.score,
          status: h.status,
          preview: h.preview,
          kind: h.kind,
        })),
      };
    },
    (message) => ({ status: "error", message, results: [] }),
  );

  tool(
    "accept_proposal",
    "Converts a draft proposal into an active decision.",
    ["accept"],
    { proposal_id: z.string() },
    async (a) => {
      const decision = await memory.accept(a.proposal_id, "agent");
      return { status: "success", message: "Accepted", decision_id: decision.id };
    },
  );

  tool(
    "sync_git_history",
    "Syncs Git commit history into episodic memory.",
    ["sync"],
    { repo_path: z.string().default("."), limit: z.number().int().default(20) },
    async (a) => {
      const result = await memory.syncGit({ repoPath: inside(a.repo_path), limit: a.limit });
      return { status: "success", message: null, indexed_commits: result.indexedCommits };
    },
  );

  tool(
    "forget_memory",
    "Hard-deletes a memory from filesystem and metadata (GDPR purge).",
    ["purge"],
    { decision_id: z.string() },
    async (a) => {
      await memory.forget(a.decision_id, "user");
      return { status: "success", message: `Forgotten ${a.decision_id}` };
    },
  );

  tool(
    "visualize_graph",
    "Generates a Mermaid diagram of the knowledge evolution graph. Optional 'target' to filter.",
    ["read"],
    { target: z.string().nullable().default(null) },
    async (a) => {
      const records = await memory.list({ target: a.target ?? undefined, limit: 500 });
      const node = (id: string) => `n${id.replaceAll("-", "")}`;
      const lines = ["graph TD"];
      for (const r of records)
        lines.push(`  ${node(r.id)}["${r.target}: ${r.title.replaceAll('"', "'")} (${r.status})"]`);
      for (const r of records)
        if (r.superseded_by)
          lines.push(`  ${node(r.id)} -->|superseded by| ${node(r.superseded_by)}`);
      return { status: "success", mermaid: lines.join("\n") };
    },
  );

  tool("get_memory_stats", "Returns memory usage statistics.", ["read"], {}, async () => ({
    status: "success",
    stats: await memory.stats(),
  }));

  tool(
    "bootstrap_project_context",
    "Analyzes the project structure and key files.\nThe agent MUST use the returned information to call `record_decision`\nseparately for different semantic areas (e.g. one for 'Architecture',\none for 'Dependencies', one for 'File Structure'). Do not cram everything into one decision.",
    ["read", "propose"],
    { path: z.string().default(".") },
    async (a) => {
      const dir = inside(a.path);
      const entries = (await readdir(dir, { withFileTypes: true }))
        .filter((e) => !e.name.startsWith(".") && e.name !== "node_modules")
        .slice(0, 100);
      const lines = [
        `Project at ${dir}`,
        "",
        "Top-level entries:",
        ...entries.map((e) => `- ${e.name}${e.isDirectory() ? "/" : ""}`),
      ];
      for (const file of ["package.json", "README.md", "pyproject.toml", "go.mod", "Cargo.toml"]) {
        const body = await readFile(resolve(dir, file), "utf8").catch(() => null);
        if (body !== null)
          lines.push("", `${file} (first 40 lines):`, ...body.split("\n").slice(0, 40));
      }
      return lines.join("\n");
    },
  );

  tool(
    "get_environment_health",
    "Returns diagnostic information about the system environment (disk, git, python).",
    ["read"],
    {},
    async () => ({
      status: "success",
      health: {
        node: process.version,
        platform: process.platform,
        database: store.dialect,
        keel: VERSION,
        root,
      },
    }),
  );

  tool(
    "get_audit_logs",
    "Returns the last N lines of the MCP audit log.",
    ["read"],
    { limit: z.number().int().default(20) },
    async (a) => {
      const rows = await store.kysely
        .withTables<{
          state_audit_events: { seq: number; type: string; summary: string; recorded_at: number };
        }>()
        .selectFrom("state_audit_events")
        .select(["type", "summary", "recorded_at"])
        .where("type", "like", "memory.%")
        .orderBy("seq", "desc")
        .limit(Math.max(1, Math.min(a.limit, 1000)))
        .execute();
      return {
        status: "success",
        logs: rows
          .reverse()
          .map((r) => `${new Date(Number(r.recorded_at)).toISOString()} ${r.type} ${r.summary}`),
      };
    },
  );

  tool(
    "export_memory_bundle",
    "Creates a full backup of the memory storage in a .tar.gz file.",
    ["purge"],
    { output_filename: z.string().default("memory_export.tar.gz") },
    async (a) => {
      // Keel's bundle is one JSON document; a name ending in .gz gets it gzip-compressed.
      const path = inside(a.output_filename);
      const body = `${JSON.stringify(await memory.exportBundle(), null, 2)}\n`;
      await writeFile(path, path.endsWith(".gz") ? gzipSync(body) : body);
      return { status: "success", export_path: path };
    },
  );

  tool(
    "get_api_specification",
    "Returns the formal JSON specification (OpenRPC-like) of the Ledgermind API.",
    [],
    {},
    async () =>
      JSON.stringify(
        {
          openrpc: "1.2.6",
          info: { title: "Keel decision memory (MCP)", version: VERSION },
          methods: specs.map((s) => ({
            name: s.name,
            description: s.description,
            capabilities: s.capabilities,
          })),
        },
        null,
        2,
      ),
  );

  tool(
    "get_relevant_context",
    "Retrieves and formats relevant context for a given user prompt (Bridge Tool).",
    ["read"],
    { prompt: z.string(), limit: z.number().int().default(3) },
    async (a) => (await memory.context(a.prompt, { limit: a.limit })).text,
  );

  tool(
    "record_interaction",
    "Records a completed interaction (prompt and response) into episodic memory (Bridge Tool).",
    ["propose"],
    { prompt: z.string(), response: z.string(), success: z.boolean().default(true) },
    async (a) => {
      await memory.recordEvent({
        source: "agent",
        kind: "prompt",
        content: a.prompt,
        context: { layer: "mcp" },
      });
      await memory.recordEvent({
        source: "agent",
        kind: "result",
        content: a.response,
        context: { layer: "mcp", success: a.success },
      });
      return { status: "success" };
    },
  );

  tool(
    "link_interaction_to_decision",
    "Links a specific episodic event (e.g., from search) to a semantic decision as evidence.",
    ["supersede"],
    { event_id: z.number().int(), decision_id: z.string() },
    async (a) => {
      await memory.link(a.event_id, a.decision_id);
      return { status: "success", message: `Linked event ${a.event_id} to ${a.decision_id}` };
    },
  );

  tool(
    "repair_language",
    "Scans enriched decisions and resets status for records that don't match the preferred language.",
    ["maintenance"],
    {},
    async () => ({
      status: "error",
      message:
        "Keel does not enrich records with a language model, so no record has an enrichment language to repair.",
    }),
  );

  // Keel's own tools: approvals and runs.
  const approvals = () => new ApprovalService({ store, audit: new AuditWriter(store) });
  tool(
    "list_pending_approvals",
    "Lists the approvals waiting for a person.",
    ["read"],
    { limit: z.number().int().default(50) },
    async (a) => ({
      status: "success",
      approvals: await approvals().list({ status: "pending", limit: a.limit }),
    }),
  );

  tool(
    "decide_approval",
    "Approves or denies a pending approval (needs the approvals capability, and the approval's own required capability among `capabilities`).",
    ["approvals"],
    {
      approval_id: z.string(),
      decision: z.enum(["approve", "deny"]),
      by: z.string(),
      reason: z.string().nullable().default(null),
      capabilities: z.array(z.string()).default([]),
    },
    async (a) => {
      const service = approvals();
      const decision = { by: a.by, reason: a.reason, capabilities: a.capabilities };
      const approval =
        a.decision === "approve"
          ? await service.approve(a.approval_id, decision)
          : await service.deny(a.approval_id, decision);
      return { status: "success", approval };
    },
  );

  tool(
    "show_run",
    "Shows a run (a task): its status and steps.",
    ["read"],
    { run_id: z.string() },
    async (a) => {
      const db = store.kysely.withTables<{
        state_runs: Json & { id: string };
        state_steps: Json & { run_id: string; created_at: number };
      }>();
      const run = await db
        .selectFrom("state_runs")
        .selectAll()
        .where("id", "=", a.run_id)
        .executeTakeFirst();
      if (!run) return { status: "error", message: `No run ${a.run_id}.` };
      const steps = await db
        .selectFrom("state_steps")
        .selectAll()
        .where("run_id", "=", a.run_id)
        .orderBy("created_at")
        .execute();
      return { status: "success", run, steps };
    },
  );

  return server;
}
