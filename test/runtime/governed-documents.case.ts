import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { keelInProcess } from "../store/cli-in-process.js";
import type { CliDatabases } from "./support/cli-databases.js";

// `keel run` of an IR document is a governed run: the README's approval flow, in process.
const root = new URL("../../", import.meta.url).pathname;
const refund = join(root, "examples/refund-approval.json");
const input =
  '{"customer_id":"c1","amount":120.5,"fraud_score":0.1,"mail_failed":0,"approved":false}';

async function keel(db: string, ...args: string[]) {
  return keelInProcess([...args, "--db", db, "--json"]);
}

interface Waiting {
  kind: string;
  approval_id?: string;
  how_to_continue: string;
}

/**
 * The governed IR run suite on one dialect: `databases.fresh()` gives each test its database
 * (a SQLite file, or the test file's Postgres database shared by its tests, which therefore
 * look only at their own runs).
 */
export function runGovernedDocumentCases(databases: CliDatabases): void {
  describe(`governed IR runs: ${databases.dialect}`, () => {
    afterAll(() => databases.cleanup());
    const scratch = () => databases.fresh();
    it("the README's approval flow leaves an approval, an audit trail and a ledgered refund", async () => {
      const db = await scratch();
      const paused = await keel(db, "run", refund, "--thread", "demo", "--input", input);
      expect(paused.exitCode, paused.stdout + paused.stderr).toBe(0);
      expect(paused.json.status).toBe("interrupted");
      const waiting = paused.json.waiting_for as Waiting[];
      expect(waiting).toHaveLength(1);
      expect(waiting[0]?.kind).toBe("approval");
      expect(waiting[0]?.how_to_continue).toContain("--capability refunds:approve");
      const approvalId = waiting[0]?.approval_id as string;

      const listed = await keel(db, "approvals", "list", "--status", "pending");
      expect(
        (listed.json.approvals as { approval_id: string }[]).map((a) => a.approval_id),
      ).toContain(approvalId);

      // Without the capability the answer is refused, audited, and the run keeps waiting.
      const refused = await keel(
        db,
        "run",
        refund,
        "--thread",
        "demo",
        "--respond",
        '{"approved":true}',
      );
      expect(refused.exitCode).toBe(2);
      expect((refused.json.error as { code: string }).code).toBe("CAPABILITY_MISSING");

      const answered = await keel(
        db,
        ...["run", refund, "--thread", "demo", "--respond", '{"approved":true}'],
        ...["--capability", "refunds:approve"],
      );
      expect(answered.exitCode, answered.stdout + answered.stderr).toBe(0);
      expect(answered.json.status).toBe("completed");
      expect((answered.json.state as { refund_id: string }).refund_id).toBe("rf-c1-12050");

      const show = await keel(db, "approvals", "show", approvalId);
      expect((show.json.approval as { status: string }).status).toBe("approved");

      const trace = String(paused.json.trace_id);
      const audit = await keel(db, "audit", trace);
      const types = (audit.json.events as { type: string }[]).map((e) => e.type);
      for (const type of [
        "task.created",
        "rule.fired",
        "ir.transition",
        "gate.approval_requested",
        "task.paused",
        "gate.decision_refused",
        "gate.approved",
        "task.resumed",
        "gate.preview",
        "tool_call.attempted",
        "tool_call.succeeded",
        "task.succeeded",
      ]) {
        expect(types, type).toContain(type);
      }
      // One audited transition per recorded transition of the run.
      const transitions = answered.json.transitions as unknown[];
      expect(types.filter((t) => t === "ir.transition")).toHaveLength(transitions.length);

      const ledger = await keel(db, "ledger", "list", "--status", "succeeded", "--trace", trace);
      expect((ledger.json.calls as { tool_name?: string }[]).length).toBe(1);
      expect((await keel(db, "audit", "verify")).exitCode).toBe(0);
    });

    it("`keel approvals approve --value` answers and continues the run; deny ends it fail-closed", async () => {
      const db = await scratch();
      const first = await keel(db, "run", refund, "--input", input);
      const id = (first.json.waiting_for as Waiting[])[0]?.approval_id as string;
      // A bad answer is refused before anything is decided.
      const bad = await keel(
        db,
        "approvals",
        "approve",
        id,
        "--capability",
        "refunds:approve",
        "--value",
        '{"approved":"yes"}',
      );
      expect(bad.exitCode).toBe(1);
      expect((await keel(db, "approvals", "show", id)).json.approval).toMatchObject({
        status: "pending",
      });
      const ok = await keel(
        db,
        "approvals",
        "approve",
        id,
        "--capability",
        "refunds:approve",
        "--value",
        '{"approved":true}',
      );
      expect(ok.exitCode, ok.stdout + ok.stderr).toBe(0);
      expect(ok.json.run).toMatchObject({ continued: true, status: "succeeded" });
      const again = await keel(db, "approvals", "approve", id, "--capability", "refunds:approve");
      expect(again.exitCode).toBe(3);
      expect(again.stdout + again.stderr).toContain("keel runs resume");

      const second = await keel(db, "run", refund, "--input", input);
      const id2 = (second.json.waiting_for as Waiting[])[0]?.approval_id as string;
      const denied = await keel(
        db,
        "approvals",
        "deny",
        id2,
        "--capability",
        "refunds:approve",
        "--reason",
        "no",
      );
      expect(denied.exitCode, denied.stdout + denied.stderr).toBe(0);
      const run = await keel(db, "runs", "show", String(second.json.thread_id));
      expect(JSON.stringify(run.json.state)).not.toContain("refund_id");
    });

    it("an answer that matches no rule cannot fall through to the refund", async () => {
      const db = await scratch();
      const first = await keel(db, "run", refund, "--thread", "t", "--input", input);
      expect(first.json.status).toBe("interrupted");
      const answered = await keel(
        db,
        "runs",
        "respond",
        String(first.json.run_id),
        "--value",
        "{}",
        "--capability",
        "refunds:approve",
      );
      expect(answered.exitCode, answered.stdout + answered.stderr).toBe(0);
      const state = answered.json.state as Record<string, unknown>;
      expect(state.refund_id).toBeUndefined();
      const last = (answered.json.transitions as { to: string; rule: string | null }[]).at(-1);
      expect(last).toMatchObject({ to: "__end__" });
    });

    it("refuses `--respond` on a thread that waits for nothing, leaving no run record", async () => {
      const db = await scratch();
      const done = await keel(
        db,
        "run",
        refund,
        "--thread",
        "small",
        "--input",
        input.replace("120.5", "20"),
      );
      expect(done.json.status).toBe("completed");
      const respond = await keel(db, "run", refund, "--thread", "small", "--respond", "{}");
      expect(respond.exitCode).toBe(2);
      expect((respond.json.error as { code: string }).code).toBe("RUN_INVALID_TRANSITION");
      const show = await keel(db, "runs", "show", "small");
      expect((show.json.runs as unknown[]).length).toBe(1);
    });

    it("`keel ir lint` warns of fall-through into effects, tools without risk, approvals without expiry", async () => {
      const dir = mkdtempSync(join(tmpdir(), "keel-lint-"));
      const doc = {
        ir_version: "1.0.0",
        id: "graph:lint",
        nodes: [
          { id: "ask", kind: "echo" },
          { id: "pay", kind: "./tools.mjs:pay" },
        ],
        rules: [
          JSON.parse(
            '{"id":"q","when":"(node-id ask)","then":[{"kind":"interrupt","prompt":"ok?"}]}',
          ),
        ],
        tools: [{ id: "pay.out" }],
        state_schema: { ok: "bool" },
      };
      writeFileSync(join(dir, "doc.json"), JSON.stringify(doc));
      writeFileSync(
        join(dir, "tools.mjs"),
        `export const pay = () => ({});
export const tools = [{ spec: { name: "out", namespace: "pay", version: "1.0.0", description: "pay",
  input_schema: { type: "object" }, output_schema: { type: "object" }, side_effects: "external" },
  handler: () => ({}) }];`,
      );
      const lint = await keelInProcess(["ir", "lint", join(dir, "doc.json"), "--json"]);
      expect(lint.exitCode).toBe(1);
      const codes = (lint.json.warnings as { code: string }[]).map((w) => w.code).sort();
      expect(codes).toEqual([
        "approval_without_expiry",
        "fall_through_to_effect",
        "tool_without_risk",
      ]);
      const clean = await keelInProcess(["ir", "lint", refund, "--json"]);
      expect(clean.json.warnings).toEqual([]);
      expect(clean.exitCode).toBe(0);
    });
  });
}
