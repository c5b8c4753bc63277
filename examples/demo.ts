/**
 * `npm run demo`: a support-ticket triage graph on Keel's state-graph engine.
 *
 * It shows, in one small program: a reducer (the audit trail), a conditional loop (drafting until
 * the reply is good enough), a `Send` fan-out (one specialist check per topic, in parallel), an
 * `interrupt()` that pauses for a human and is resumed with `Command({ resume })`, and the
 * thread's history from the checkpointer.
 *
 * Checkpoints go to the embedded default: the project's SQLite database `./.keel/keel.db`,
 * created and migrated on first use (`KEEL_DATABASE_URL=postgres://…` runs it on Postgres).
 */

import { PostgresSaver, SqliteSaver } from "../src/checkpoint/index.js";
import {
  Annotation,
  Command,
  END,
  INTERRUPT,
  interrupt,
  Send,
  START,
  StateGraph,
} from "../src/index.js";
import { openStore } from "../src/store/index.js";

const Ticket = Annotation.Root({
  text: Annotation<string>(),
  topics: Annotation<string[]>({ reducer: (_old, next) => next, default: () => [] }),
  findings: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
  draft: Annotation<string>({ reducer: (_old, next) => next, default: () => "" }),
  revisions: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
  approved: Annotation<boolean>({ reducer: (_old, next) => next, default: () => false }),
  audit: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
});
type TicketState = typeof Ticket.State;

const TOPIC_WORDS: Record<string, string[]> = {
  billing: ["invoice", "charge", "refund"],
  outage: ["down", "error", "timeout"],
  account: ["password", "login", "email"],
};

function classify(state: TicketState) {
  const words = state.text.toLowerCase();
  const topics = Object.keys(TOPIC_WORDS).filter((topic) =>
    TOPIC_WORDS[topic]!.some((word) => words.includes(word)),
  );
  return { topics, audit: [`classify: ${topics.join(", ") || "none"}`] };
}

/** One specialist per topic, run in parallel through `Send`. */
function specialist(input: unknown) {
  const { topic } = input as { topic: string };
  const finding = {
    billing: "refund is within the 30-day window",
    outage: "incident #42 is already open",
    account: "password reset link can be re-sent",
  }[topic];
  return { findings: [`${topic}: ${finding}`], audit: [`specialist ${topic}`] };
}

function draftReply(state: TicketState) {
  // Each revision adds one finding to the reply: the loop runs until all are covered.
  const covered = state.findings.slice(0, state.revisions + 1);
  return {
    draft: `Hello! ${covered.map((f) => f.split(": ")[1]).join("; ")}.`,
    revisions: 1,
    audit: [`draft v${state.revisions + 1}`],
  };
}

function humanReview(state: TicketState) {
  const answer = interrupt<{ draft: string }, string>({ draft: state.draft });
  return { approved: answer === "approve", audit: [`human said ${answer}`] };
}

const builder = new StateGraph(Ticket)
  .addNode("classify", classify)
  .addNode("specialist", specialist)
  .addNode("write", draftReply)
  .addNode("review", humanReview)
  .addNode("send", () => ({ audit: ["reply sent"] }))
  .addEdge(START, "classify")
  .addConditionalEdges("classify", (s) =>
    s.topics.length > 0 ? s.topics.map((topic) => new Send("specialist", { topic })) : "write",
  )
  .addEdge("specialist", "write")
  .addConditionalEdges("write", (s) => (s.revisions < s.findings.length ? "write" : "review"))
  .addConditionalEdges("review", (s) => (s.approved ? "send" : END))
  .addEdge("send", END);

const store = await openStore();
const checkpointer =
  store.dialect === "sqlite" ? SqliteSaver.fromStore(store) : PostgresSaver.fromStore(store);
const graph = builder.compile({ checkpointer });

// A new thread per run: every run of the demo is kept, and `keel runs list` shows them.
const config = { configurable: { thread_id: `ticket-1017-${Date.now().toString(36)}` } };
const where = store.location.dialect === "sqlite" ? store.location.path : "Postgres";
console.log(`Checkpoints go to ${where} (thread ${config.configurable.thread_id})\n`);
const text = "I was charged twice and now login fails with an error";

console.log(`Ticket: "${text}"\n`);
for await (const update of await graph.stream({ text }, { ...config, streamMode: "updates" })) {
  for (const [node, change] of Object.entries(update as Record<string, unknown>)) {
    console.log(`  ${node.padEnd(14)} ${JSON.stringify(change)}`);
  }
}

const paused = await graph.getState(config);
const pending = paused.tasks.flatMap((task) => task.interrupts);
console.log(`\nPaused before: ${paused.next.join(", ")} — waiting for a human on:`);
console.log(`  ${JSON.stringify(pending[0]?.value)}`);

console.log('\nResuming with Command({ resume: "approve" })…');
const done = await graph.invoke(new Command({ resume: "approve" }), config);
if (INTERRUPT in done) throw new Error("The run should have finished.");
console.log(`  approved: ${done.approved}`);
console.log(`  reply:    ${done.draft}`);

console.log("\nAudit trail (a reducer that appends):");
for (const line of done.audit) console.log(`  - ${line}`);

console.log("\nHistory, newest first (every one can be resumed or forked):");
for await (const snapshot of graph.getStateHistory(config)) {
  const { source, step } = snapshot.metadata ?? {};
  const next = snapshot.next.length > 0 ? `next: ${snapshot.next.join(", ")}` : "finished";
  console.log(`  step ${String(step).padStart(2)}  ${String(source).padEnd(6)} ${next}`);
}

console.log("\nThe thread is in the database: `npm run keel -- runs list` shows it.");
await store.close();
