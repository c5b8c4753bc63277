/**
 * The catalog, jobs and memory APIs over loopback HTTP, on a real project scope (SQLite in
 * `<dir>/.keel/`, a real scan of a small `.claude/` tree, job files written beside the database).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtInRegistry, scanScope } from "../../src/catalog/index.js";
import { startTestServer, type TestServer } from "./support.js";

let t: TestServer;
// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON answers by path
type Answer = Record<string, any>;

const FILES: Record<string, string> = {
  ".claude/skills/deploy/SKILL.md":
    "---\nname: deploy\ndescription: Ship the service.\nmetadata:\n  version: 1.0.0\n---\nRun /review first, then ask @reviewer.\n",
  ".claude/commands/review.md":
    "---\nname: review\ndescription: Review a change.\nmetadata:\n  version: 1.0.0\n---\nRead the diff. See /missing-command.\n",
  ".claude/agents/reviewer.md":
    "---\nname: reviewer\ndescription: Reviews code.\nmetadata:\n  version: 1.0.0\n---\nYou review code.\n",
};

beforeAll(async () => {
  t = await startTestServer({ project: true });
});
afterAll(async () => {
  await t?.close();
});

async function call(
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; body: Answer; text: string }> {
  const response = await fetch(`${t.server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  let json: Answer = {};
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: response.status, body: json, text };
}

async function scan(): Promise<void> {
  for (const [path, text] of Object.entries(FILES)) {
    mkdirSync(join(t.dir, path, ".."), { recursive: true });
    writeFileSync(join(t.dir, path), text);
  }
  await scanScope(t.store, { root: t.dir, registry: builtInRegistry() });
}

describe("the catalog API", () => {
  it("says the scope has not been scanned, then serves the stored scan read-only", async () => {
    const before = await call("GET", "/api/nodes", t.tokens.read);
    expect([before.status, before.body.error?.code]).toEqual([409, "CATALOG_NOT_SCANNED"]);
    expect((await call("GET", "/api/scan", t.tokens.read)).status).toBe(409);
    await scan();

    const head = await call("GET", "/api/scan", t.tokens.read);
    expect(head.status).toBe(200);
    expect(head.body.scan.stats.nodesCount).toBe(3);
    expect(head.body.scan.nodes).toBeUndefined();
    const full = await call("GET", "/api/scan?full=true", t.tokens.read);
    expect(full.body.scan.nodes.map((n: { path: string }) => n.path).sort()).toEqual(
      Object.keys(FILES).sort(),
    );

    const nodes = await call("GET", "/api/nodes?kind=skill", t.tokens.read);
    expect(nodes.body.nodes.map((n: { path: string }) => n.path)).toEqual([
      ".claude/skills/deploy/SKILL.md",
    ]);
    const queried = await call(
      "GET",
      `/api/nodes?q=${encodeURIComponent("path:.claude/commands/**")}`,
      t.tokens.read,
    );
    expect(queried.body.nodes).toHaveLength(1);
    const badQuery = await call("GET", "/api/nodes?q=colour:red", t.tokens.read);
    expect([badQuery.status, badQuery.body.error?.code]).toEqual([400, "CATALOG_QUERY_INVALID"]);
    const badKind = await call("GET", "/api/nodes?kind=widget&sort_by=mood", t.tokens.read);
    expect(badKind.status).toBe(422);
    expect(badKind.body.error.details.problems).toHaveLength(2);
  });

  it("shows a node with its links and issues, and the links, issues and graph", async () => {
    const show = await call(
      "GET",
      `/api/nodes/show?path=${encodeURIComponent(".claude/skills/deploy/SKILL.md")}`,
      t.tokens.read,
    );
    expect(show.status).toBe(200);
    expect(show.body.node.kind).toBe("skill");
    expect(show.body.linksOut.map((l: { target: string }) => l.target).sort()).toEqual([
      "/review",
      "@reviewer",
    ]);
    const review = await call(
      "GET",
      `/api/nodes/show?path=${encodeURIComponent(".claude/commands/review.md")}`,
      t.tokens.read,
    );
    // Nothing links to the command's path verbatim; the skill's /review lands on it by name.
    expect(review.body.linksIn).toEqual([]);
    expect(review.body.linksInResolved.map((l: { source: string }) => l.source)).toEqual([
      ".claude/skills/deploy/SKILL.md",
    ]);
    const missing = await call("GET", "/api/nodes/show?path=nope.md", t.tokens.read);
    expect([missing.status, missing.body.error?.code]).toEqual([404, "CATALOG_NODE_NOT_FOUND"]);
    expect((await call("GET", "/api/nodes/show", t.tokens.read)).status).toBe(422);

    const links = await call(
      "GET",
      `/api/links?target=${encodeURIComponent("/review")}`,
      t.tokens.read,
    );
    expect(links.body.links.map((l: { source: string }) => l.source)).toEqual([
      ".claude/skills/deploy/SKILL.md",
    ]);
    const issues = await call("GET", "/api/issues", t.tokens.read);
    expect(issues.body.issues.some((i: { ruleId: string }) => i.ruleId.includes("broken"))).toBe(
      true,
    );
    const errorsOnly = await call("GET", "/api/issues?severity=info", t.tokens.read);
    expect(errorsOnly.body.issues.every((i: { severity: string }) => i.severity === "info")).toBe(
      true,
    );

    const graph = await call("GET", "/api/graph", t.tokens.read);
    expect(graph.body.nodes).toHaveLength(3);
    expect(graph.body.links.length).toBeGreaterThan(0);
    const mermaid = await call("GET", "/api/graph?format=mermaid&q=kind:skill", t.tokens.read);
    expect(mermaid.status).toBe(200);
    expect(mermaid.text).toMatch(/^(graph|flowchart)/);
    const unknown = await call("GET", "/api/graph?format=svg", t.tokens.read);
    expect([unknown.status, unknown.body.error?.code]).toEqual([400, "CATALOG_FORMAT_UNKNOWN"]);
  });
});

describe("the jobs API", () => {
  it("queues, lists, shows and cancels jobs, refusing duplicates and finished jobs", async () => {
    const node = ".claude/skills/deploy/SKILL.md";
    const queued = await call("POST", "/api/jobs", t.tokens.jobs, {
      action: "skill-summarizer",
      node,
    });
    expect(queued.status).toBe(201);
    expect(queued.body.job.status).toBe("queued");
    expect(queued.body.job.submittedBy).toBe("operator");
    expect(JSON.stringify(queued.body)).not.toContain("nonce");
    const id = queued.body.job.id as string;

    const duplicate = await call("POST", "/api/jobs", t.tokens.jobs, {
      action: "skill-summarizer",
      node,
    });
    expect([duplicate.status, duplicate.body.error?.code]).toEqual([409, "JOB_DUPLICATE"]);
    const noNode = await call("POST", "/api/jobs", t.tokens.jobs, {
      action: "skill-summarizer",
      node: "ghost.md",
    });
    expect([noNode.status, noNode.body.error?.code]).toEqual([404, "CATALOG_NODE_NOT_FOUND"]);
    expect((await call("POST", "/api/jobs", t.tokens.read, { action: "x", node })).status).toBe(
      403,
    );

    const list = await call("GET", "/api/jobs?status=queued", t.tokens.read);
    expect(list.body.jobs.map((j: { id: string }) => j.id)).toEqual([id]);
    expect(list.body.counts).toMatchObject({ queued: 1, running: 0 });
    const show = await call("GET", `/api/jobs/${id}`, t.tokens.read);
    expect([show.body.job.id, show.body.execution]).toEqual([id, null]);

    const cancelled = await call("POST", `/api/jobs/${id}/cancel`, t.tokens.jobs);
    expect([cancelled.body.job.status, cancelled.body.job.failureReason]).toEqual([
      "failed",
      "user-cancelled",
    ]);
    const again = await call("POST", `/api/jobs/${id}/cancel`, t.tokens.jobs);
    expect([again.status, again.body.error?.code]).toEqual([409, "JOB_ALREADY_TERMINAL"]);
    const ghost = await call("GET", "/api/jobs/d-20260101-000000-ffff", t.tokens.read);
    expect([ghost.status, ghost.body.error?.code]).toEqual([404, "JOB_NOT_FOUND"]);
    const cancelGhost = await call(
      "POST",
      "/api/jobs/d-20260101-000000-ffff/cancel",
      t.tokens.jobs,
    );
    expect(cancelGhost.status).toBe(404);
  });
});

describe("the memory API", () => {
  it("records, searches, supersedes and shows decisions; refuses conflicts and bad content", async () => {
    const recorded = await call("POST", "/api/memory", t.tokens.memory, {
      title: "Use PostgreSQL for the ledger",
      target: "ledger-database",
      rationale: "ACID transactions and JSONB for tool results.",
    });
    expect(recorded.status).toBe(201);
    const first = recorded.body.record.id as string;
    expect(recorded.body.record.source).toBe("user");

    const taken = await call("POST", "/api/memory", t.tokens.memory, {
      title: "Use MySQL",
      target: "ledger-database",
      rationale: "Everyone knows it, supposedly.",
    });
    expect([taken.status, taken.body.error?.code]).toEqual([409, "MEMORY_CONFLICT"]);
    const invalid = await call("POST", "/api/memory", t.tokens.memory, {
      title: "x",
      target: "ab",
      rationale: "short",
    });
    expect([invalid.status, invalid.body.error?.code]).toEqual([422, "MEMORY_INVALID"]);
    expect(invalid.body.error.details.problems.length).toBeGreaterThanOrEqual(2);
    expect(
      (
        await call("POST", "/api/memory", t.tokens.read, {
          title: "a",
          target: "b",
          rationale: "c",
        })
      ).status,
    ).toBe(403);

    const hits = await call("GET", "/api/memory/search?query=postgresql", t.tokens.read);
    expect(hits.body.hits.map((h: { id: string }) => h.id)).toEqual([first]);

    const next = await call("POST", "/api/memory/supersede", t.tokens.memory, {
      title: "Use SQLite for the ledger",
      target: "ledger-database",
      rationale: "One file is enough for a single node deployment.",
      old_decision_ids: [first],
    });
    expect(next.status).toBe(201);
    const second = next.body.record.id as string;
    const old = await call("GET", `/api/memory/${first}`, t.tokens.read);
    expect([old.body.record.status, old.body.record.superseded_by]).toEqual(["superseded", second]);
    // A balanced search resolves the superseded hit to its successor.
    const resolved = await call("GET", "/api/memory/search?query=postgresql", t.tokens.read);
    expect(resolved.body.hits.map((h: { id: string }) => h.id)).toEqual([second]);
    const staleSupersede = await call("POST", "/api/memory/supersede", t.tokens.memory, {
      title: "Use DuckDB",
      target: "ledger-database",
      rationale: "Columnar storage for the analytics we do not have.",
      old_decision_ids: [first],
    });
    expect(staleSupersede.status).toBe(409);
    const list = await call("GET", "/api/memory?status=active", t.tokens.read);
    expect(list.body.records.map((r: { id: string }) => r.id)).toEqual([second]);
    const none = await call("GET", "/api/memory/nope", t.tokens.read);
    expect([none.status, none.body.error?.code]).toEqual([404, "MEMORY_NOT_FOUND"]);
  });
});

describe("memory proposals", () => {
  it("proposes, accepts (superseding what it suggests) and rejects; refuses what is not a draft", async () => {
    const held = await call("POST", "/api/memory", t.tokens.memory, {
      title: "Retry tool calls three times",
      target: "tool-retries",
      rationale: "Three attempts cover the transient failures we have seen.",
    });
    const proposed = await call("POST", "/api/memory/proposals", t.tokens.memory, {
      title: "Retry tool calls five times",
      target: "tool-retries",
      rationale: "The payments API fails more often than three attempts cover.",
      confidence: 0.7,
      suggested_supersedes: [held.body.record.id],
    });
    expect(proposed.status).toBe(201);
    expect([proposed.body.record.kind, proposed.body.record.status]).toEqual(["proposal", "draft"]);
    const proposal = proposed.body.record.id as string;
    expect((await call("POST", `/api/memory/${proposal}/accept`, t.tokens.read)).status).toBe(403);

    const accepted = await call("POST", `/api/memory/${proposal}/accept`, t.tokens.memory);
    expect(accepted.status).toBe(201);
    expect([accepted.body.record.kind, accepted.body.record.status]).toEqual([
      "decision",
      "active",
    ]);
    expect(accepted.body.record.supersedes).toEqual([held.body.record.id]);
    const after = await call("GET", `/api/memory/${proposal}`, t.tokens.read);
    expect(after.body.record.status).toBe("accepted");
    const again = await call("POST", `/api/memory/${proposal}/accept`, t.tokens.memory);
    expect([again.status, again.body.error?.code]).toEqual([409, "MEMORY_INVARIANT"]);

    const second = await call("POST", "/api/memory/proposals", t.tokens.memory, {
      title: "Never retry tool calls",
      target: "tool-retries-payments",
      rationale: "A retried payment may charge twice without a key.",
      confidence: 0.4,
    });
    const rejected = await call(
      "POST",
      `/api/memory/${second.body.record.id}/reject`,
      t.tokens.memory,
      {
        reason: "The ledger's idempotency keys make retries safe.",
      },
    );
    expect(rejected.status).toBe(200);
    expect(rejected.body.record.status).toBe("rejected");
    expect(rejected.body.record.context.objections).toContain(
      "The ledger's idempotency keys make retries safe.",
    );
    const notProposal = await call(
      "POST",
      `/api/memory/${accepted.body.record.id}/reject`,
      t.tokens.memory,
      {},
    );
    expect([notProposal.status, notProposal.body.error?.code]).toEqual([409, "MEMORY_INVARIANT"]);
    const missing = await call("POST", "/api/memory/nope/accept", t.tokens.memory);
    expect(missing.status).toBe(404);
    const bad = await call("POST", "/api/memory/proposals", t.tokens.memory, {
      title: "x",
      target: "y",
      rationale: "z",
      confidence: 2,
    });
    expect(bad.status).toBe(422);
  });
});

describe("the OpenAPI document", () => {
  it("describes the catalog, jobs and memory routes with their capabilities", async () => {
    const doc = (await (await fetch(`${t.server.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { "x-keel-capability": string }>>;
    };
    for (const path of ["/api/scan", "/api/nodes", "/api/links", "/api/issues", "/api/graph"])
      expect(doc.paths[path]?.get?.["x-keel-capability"]).toBe("read");
    expect(doc.paths["/api/jobs/{job_id}/cancel"]?.post?.["x-keel-capability"]).toBe("jobs");
    expect(doc.paths["/api/memory/supersede"]?.post?.["x-keel-capability"]).toBe("memory");
  });
});
