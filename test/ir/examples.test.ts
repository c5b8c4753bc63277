/**
 * examples/: every IR example is valid, round-trips, and runs end to end — each path through it
 * asserted step by step with its final state — and the README's commands work as written.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Command, MemorySaver } from "../../src/index.js";
import {
  ACTION_KINDS,
  compileDocument,
  dumps,
  loadKindsModule,
  loadPackFiles,
  loads,
  validate,
} from "../../src/ir/index.js";
import type { Transition } from "../../src/ir/run/routing.js";
import { keelInProcess } from "../store/cli-in-process.js";
import { root } from "./cli-support.js";

const examples = join(root, "examples");
// The IR documents in examples/ (other files there belong to other demos).
const FILES = ["triage.json", "refund-approval.json", "research-fanout.json"];
const documents = FILES.map((file) => ({
  file,
  text: readFileSync(join(examples, file), "utf8"),
}));

describe("examples/", () => {
  for (const { file, text } of documents) {
    it(`${file} is a valid IR document that round-trips`, () => {
      expect(validate(text)).toEqual([]);
      const wire = dumps(loads(text));
      expect(dumps(loads(wire))).toBe(wire);
    });
  }

  it("use every action kind between them", () => {
    const kinds = new Set(
      documents.flatMap(({ text }) => loads(text).rules.flatMap((r) => r.then.map((a) => a.kind))),
    );
    expect([...kinds].sort()).toEqual([...ACTION_KINDS].sort());
  });
});

/**
 * Compiles an example as `keel run` does (its packs folder, examples/kinds.mjs's node kinds),
 * without the governed runtime: node code calls the example's tools directly (the governed runs
 * of the examples are tested in test/runtime/governed-documents.test.ts).
 */
async function compileExample(file: string) {
  const text = readFileSync(join(examples, file), "utf8");
  const { nodeKinds } = await loadKindsModule(join(examples, "kinds.mjs"), root);
  const { tools } = (await import(join(examples, "kinds.mjs"))) as {
    tools: { spec: { namespace: string; name: string }; handler: (input: unknown) => unknown }[];
  };
  const call = async (tool: string, input: unknown) =>
    tools.find((t) => `${t.spec.namespace}.${t.spec.name}` === tool)?.handler(input);
  return compileDocument(text, {
    baseDir: examples,
    packs: await loadPackFiles(loads(text), join(examples, "packs")),
    nodeKinds,
    checkpointer: new MemorySaver(),
    governance: { node: (_node, _state, run) => run(call) },
  });
}

type Compiled = Awaited<ReturnType<typeof compileExample>>;
let threads = 0;

/** Runs to the end, answering each interrupt with the next of `answers`. */
async function runToEnd(compiled: Compiled, input: unknown, answers: unknown[] = []) {
  const config = { configurable: { thread_id: `example-${++threads}` } };
  let out = await compiled.graph.invoke(input, config);
  const pending = [...answers];
  const prompts: string[] = [];
  while (out.__interrupt__ && pending.length > 0) {
    prompts.push(out.__interrupt__[0].value.prompt);
    out = await compiled.graph.invoke(new Command({ resume: pending.shift() }), config);
  }
  const state = Object.fromEntries(
    compiled.fields.filter((f) => out[f] !== undefined).map((f) => [f, out[f]]),
  );
  const steps = (out.__ir_transitions as Transition[]).map(
    (t) => `${t.from}>${t.to}${t.rule ? `@${t.rule}` : ""}`,
  );
  return { out, state, steps, prompts, waiting: out.__interrupt__ !== undefined };
}

describe("triage.json (the seed's example)", () => {
  it("routes severity >= 4 to the dspy node once, then halts", async () => {
    const run = await runToEnd(await compileExample("triage.json"), {
      message: "disk full",
      severity: 5,
    });
    expect(run.steps).toEqual(["node_a>node_b@rule.escalate", "node_b>halt", "halt>__end__"]);
    expect(run.state).toEqual({
      message: "[node_b: escalated, severity 5] disk full",
      severity: 5,
    });
  });

  it("falls through a minor ticket unchanged", async () => {
    const run = await runToEnd(await compileExample("triage.json"), {
      message: "typo",
      severity: 1,
    });
    expect(run.steps).toEqual(["node_a>node_b", "node_b>halt", "halt>__end__"]);
    expect(run.state.message).toBe("[node_b: escalated, severity 1] typo");
  });
});

describe("refund-approval.json", () => {
  const small = { customer_id: "c1", amount: 20 };

  it("pays a small refund and mails the customer", async () => {
    const run = await runToEnd(await compileExample("refund-approval.json"), small);
    expect(run.steps).toEqual([
      "receive>auto_refund@rule.small-refund",
      "auto_refund>notify@rule.after-refund",
      "notify>done@rule.finish",
      "done>__end__",
    ]);
    expect(run.state).toEqual({
      ...small,
      fraud_score: 0,
      refund_id: "rf-c1-2000",
      mail_sent: true,
    });
  });

  it("retries the mail while the server is down, and finishes when it comes back", async () => {
    const run = await runToEnd(await compileExample("refund-approval.json"), {
      ...small,
      mail_outage: 1,
    });
    expect(run.steps).toEqual([
      "receive>auto_refund@rule.small-refund",
      "auto_refund>notify@rule.after-refund",
      "notify>notify@rule.notify-retry",
      "notify>done@rule.finish",
      "done>__end__",
    ]);
    expect(run.state).toMatchObject({ mail_failed: 1, mail_sent: true });
  });

  it("gives up on the mail after three failures and opens a ticket", async () => {
    const run = await runToEnd(await compileExample("refund-approval.json"), {
      ...small,
      mail_outage: 5,
    });
    expect(run.steps).toEqual([
      "receive>auto_refund@rule.small-refund",
      "auto_refund>notify@rule.after-refund",
      "notify>notify@rule.notify-retry",
      "notify>notify@rule.notify-retry",
      "notify>escalate@rule.notify-give-up",
      "escalate>done",
      "done>__end__",
    ]);
    expect(run.state).toMatchObject({
      mail_failed: 3,
      mail_sent: false,
      ticket: "refund rf-c1-2000: mail to c1 failed",
    });
  });

  it("asks a reviewer about a large refund: approved, it is paid", async () => {
    const run = await runToEnd(
      await compileExample("refund-approval.json"),
      { customer_id: "c2", amount: 120.5, fraud_score: 0.1 },
      [{ approved: true }],
    );
    expect(run.prompts).toEqual(["Approve a refund above 50?"]);
    expect(run.steps).toEqual([
      "receive>__ir_wait__@rule.large-refund",
      "__ir_wait__>manual_review@rule.large-refund",
      "manual_review>auto_refund@rule.approved",
      "auto_refund>notify@rule.after-refund",
      "notify>done@rule.finish",
      "done>__end__",
    ]);
    expect(run.state).toEqual({
      customer_id: "c2",
      amount: 120.5,
      fraud_score: 0.1,
      approved: true,
      refund_id: "rf-c2-12050",
      mail_sent: true,
    });
  });

  it("stops a rejected refund and a suspected fraud", async () => {
    const compiled = await compileExample("refund-approval.json");
    const rejected = await runToEnd(compiled, { customer_id: "c3", amount: 300 }, [
      { approved: false },
    ]);
    expect(rejected.steps.slice(-1)).toEqual(["manual_review>__end__@rule.rejected"]);
    expect(rejected.state.refund_id).toBeUndefined();
    // A week-old account with a doubtful signal: the score crosses 0.9.
    const fraud = await runToEnd(compiled, { ...small, fraud_score: 0.6, account_age_days: 2 });
    expect(fraud.steps).toEqual(["receive>__end__@rule.fraud-stop"]);
    expect(fraud.out.__ir_transitions[0].reason).toBe("halt: suspected fraud: refund refused");
    expect(fraud.state.fraud_score).toBe(1);
  });
});

describe("research-fanout.json", () => {
  const fanOut = "plan>search_web,search_papers,search_news@rule.fan-out";
  const branches = ["search_web>merge", "search_papers>merge", "search_news>merge"];

  it("searches three sources in parallel, drafts, checks in parallel, and finishes", async () => {
    const run = await runToEnd(await compileExample("research-fanout.json"), { question: "q" });
    expect(run.steps).toEqual([
      fanOut,
      ...branches,
      "merge>write",
      "write>check_facts,check_style",
      "check_facts>review",
      "check_style>review",
      "review>done@rule.reviewed",
      "done>__end__",
    ]);
    expect(run.state).toEqual({
      question: "q",
      search_rounds: 1,
      web_hits: ["web: q"],
      papers_hits: ["papers: q"],
      news_hits: ["news: q"],
      sources: 3,
      report: "q\n- web: q\n- papers: q\n- news: q",
      confidence: 0.9,
      facts_ok: true,
      style_ok: true,
    });
  });

  it("survives a source outage by quorum, searches again, then asks a person", async () => {
    const run = await runToEnd(
      await compileExample("research-fanout.json"),
      { question: "q", outages: ["web"] },
      [{ confidence: 0.85 }],
    );
    expect(run.prompts).toEqual(["The draft is below 80% confidence: edit or accept?"]);
    expect(run.steps).toEqual([
      fanOut,
      ...branches,
      "merge>plan@rule.search-again",
      fanOut,
      ...branches,
      "merge>write",
      "write>__ir_wait__@rule.low-confidence",
      // The answered interrupt falls through into the top-level block, which fans out.
      "__ir_wait__>check_facts,check_style@rule.low-confidence",
      "check_facts>review",
      "check_style>review",
      "review>done@rule.reviewed",
      "done>__end__",
    ]);
    expect(run.state).toMatchObject({ search_rounds: 2, sources: 2, confidence: 0.85 });
    expect(run.state.web_hits).toBeUndefined();
  });

  it("fails loudly when the quorum is lost", async () => {
    await expect(
      runToEnd(await compileExample("research-fanout.json"), {
        question: "q",
        outages: ["web", "news"],
      }),
    ).rejects.toMatchObject({ code: "IR_PARALLEL_FAILED" });
  });
});

describe("the README's commands", () => {
  it("run as written (on a scratch database)", async () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const commands = readmeCommands(readme);
    expect(commands.length).toBeGreaterThanOrEqual(3);
    const db = join(mkdtempSync(join(tmpdir(), "keel-readme-")), "keel.db");
    // In process (the CLI's own program), from the repository root as `npm run keel` runs.
    const outs: { status: string; transitions: Transition[] }[] = [];
    for (const args of commands) {
      const result = await keelInProcess([...args, "--db", db, "--json"], { cwd: root });
      expect(result.exitCode, `${args.join(" ")}: ${result.stdout}${result.stderr}`).toBe(0);
      outs.push(result.json as { status: string; transitions: Transition[] });
    }
    const [paused, answered, triage] = outs;
    expect(paused?.status).toBe("interrupted");
    expect(answered?.status).toBe("completed");
    expect(answered?.transitions.map((t) => `${t.from}>${t.to}`)).toEqual([
      "receive>__ir_wait__",
      "__ir_wait__>manual_review",
      "manual_review>auto_refund",
      "auto_refund>notify",
      "notify>done",
      "done>__end__",
    ]);
    expect(triage?.status).toBe("completed");
  });
});

/** The `npm run keel -- …` commands of the README's shell blocks, as argument lists. */
function readmeCommands(readme: string): string[][] {
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
  const lines = blocks
    .join("\n")
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .filter((line) => line.startsWith("npm run keel -- "));
  return lines.map((line) => shellWords(line.slice("npm run keel -- ".length)));
}

/** Splits a command line into words, honouring single quotes (all the README uses). */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? "");
}
