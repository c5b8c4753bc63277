/**
 * Node implementations for the IR examples. Plain JavaScript, so the built `keel` binary imports
 * it as well as `npm run keel`.
 *
 * Two ways in, both from the seed:
 *
 * - `nodeKinds`, loaded with `keel run <file> --kinds examples/kinds.mjs`: kind name -> factory.
 *   The seed's triage graph (triage.json) has a node of kind `dspy`: in the original system, a
 *   DSPy program. This stand-in does what such a node does in the graph — reads the ticket,
 *   writes its result into the state — without a model, so the example runs anywhere.
 * - Named node functions, which a document names as `./kinds.mjs:<export>` (the seed's
 *   `module.path:ClassName` form, resolved beside the document): refund-approval.json and
 *   research-fanout.json use them, so they run with no flag.
 *
 * A node function gets the state (the document's fields) and `{ node, config }`, and returns an
 * update of declared fields with values of their declared types (or nothing). They are stubs of
 * real services — a fraud score, a payment, a mail server that can be down, search engines that
 * can fail — deterministic, so the examples' tests can assert every step.
 */
export const nodeKinds = {
  dspy: (node) => (state) => {
    const message = String(state.message ?? "");
    return { message: `[${node.id}: escalated, severity ${state.severity}] ${message}` };
  },
};

// ── refund-approval.json ──────────────────────────────────────────────────────────────────

/**
 * Scores a refund request: the upstream fraud signal (`fraud_score`, 0 when absent), raised for
 * very large amounts and for accounts younger than a week (`account_age_days`).
 */
export function scoreRefund(state) {
  let score = state.fraud_score ?? 0;
  if (state.amount > 1000) score += 0.3;
  if (state.account_age_days !== undefined && state.account_age_days < 7) score += 0.4;
  return { fraud_score: Math.min(1, Math.round(score * 100) / 100) };
}

/**
 * Pays the refund through the `payments.refund` tool: in a governed run (`keel run`) the call
 * passes the gate (the tool's risk × the run's autonomy) and the ledger, so it happens once even
 * if the run is resumed or retried. The refund id says who got how much.
 */
export async function issueRefund(state, { call }) {
  const receipt = await call("payments.refund", {
    customer_id: state.customer_id,
    amount_cents: Math.round(state.amount * 100),
  });
  return { refund_id: receipt.refund_id };
}

/**
 * The tools the documents beside this module may call (they name them in `tools`): seed-000
 * ToolSpecs with their code. `risk:<level>` tags give each its risk; `dryRun` is what a `preview`
 * gate shows before the call. The payments stub pays nothing: the refund id it returns is derived
 * from the request, as a real payment service's idempotent answer would be.
 */
export const tools = [
  {
    spec: {
      name: "refund",
      namespace: "payments",
      version: "2.0.0",
      description: "Refund a customer",
      input_schema: {
        type: "object",
        properties: {
          customer_id: { type: "string" },
          amount_cents: { type: "integer", minimum: 1 },
        },
        required: ["customer_id", "amount_cents"],
        additionalProperties: false,
      },
      output_schema: {
        type: "object",
        properties: { refund_id: { type: "string" } },
        required: ["refund_id"],
      },
      side_effects: "external",
      tags: ["payments", "risk:medium"],
    },
    handler: (input) => ({ refund_id: `rf-${input.customer_id}-${input.amount_cents}` }),
    dryRun: (input) => ({ would_refund: input }),
  },
];

/**
 * Mails the customer (a stub of a mail server that is down for the first `mail_outage`
 * attempts): each failure counts in `mail_failed`; `mail_sent` says whether this attempt worked.
 */
export function sendMail(state) {
  const failed = state.mail_failed ?? 0;
  if (failed < (state.mail_outage ?? 0)) return { mail_failed: failed + 1, mail_sent: false };
  return { mail_sent: true };
}

/** Opens a ticket for a person to finish the job by hand. */
export function openTicket(state) {
  return {
    ticket: `refund ${state.refund_id ?? "(not paid)"}: mail to ${state.customer_id} failed`,
  };
}

// ── research-fanout.json ──────────────────────────────────────────────────────────────────

/** Plans a search round: counts the rounds. */
export function planResearch(state) {
  return { search_rounds: (state.search_rounds ?? 0) + 1 };
}

/**
 * Searches one source (the node's id: search_web -> web): one finding per source. A source
 * listed in `outages` is down and throws, as a failing service does; the parallel block's
 * strategy decides whether the round survives it.
 */
export function search(state, { node }) {
  const source = node.id.replace(/^search_/, "");
  if ((state.outages ?? []).includes(source)) throw new Error(`${source} search is unavailable`);
  return { [`${source}_hits`]: [`${source}: ${state.question}`] };
}

/** Merges the sources' findings: how many sources answered. */
export function mergeSources(state) {
  const lists = [state.web_hits, state.papers_hits, state.news_hits];
  return { sources: lists.filter((hits) => (hits ?? []).length > 0).length };
}

/** Drafts the report; confidence grows with the number of sources. */
export function writeReport(state) {
  const findings = [
    ...(state.web_hits ?? []),
    ...(state.papers_hits ?? []),
    ...(state.news_hits ?? []),
  ];
  return {
    report: `${state.question}\n${findings.map((f) => `- ${f}`).join("\n")}`,
    confidence: Math.min(0.95, Math.round((0.3 + 0.2 * (state.sources ?? 0)) * 100) / 100),
  };
}

/** Checks the report's claims: every line cites a source. */
export function checkFacts(state) {
  return {
    facts_ok: String(state.report ?? "")
      .split("\n")
      .slice(1)
      .every((line) => line.includes(":")),
  };
}

/** Checks the report's style: short enough to read. */
export function checkStyle(state) {
  return { style_ok: String(state.report ?? "").length < 2000 };
}
