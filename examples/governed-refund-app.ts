/**
 * The refund application of the governed example: its tools and its graph, exported as
 * `keelApp` so that `keel approvals approve` (and `keel runs resume|replay`) can continue and
 * replay its runs without the process that started them. `governed-refund.ts` starts runs with
 * `app: import.meta.resolve("./governed-refund-app.ts")`.
 *
 * The refund tool appends to `<.keel>/refunds.log`, a stand-in for a payment provider.
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { Annotation, END, START, StateGraph } from "../src/graph/index.js";
import {
  type GovernedAppFactory,
  type GovernedRuntime,
  governedNode,
  ToolRegistry,
} from "../src/runtime/index.js";
import type { Store } from "../src/store/index.js";

/** The payment provider's log: one line per refund made. */
export function refundsLog(store: Store): string {
  mkdirSync(store.location.keelDir, { recursive: true });
  return join(store.location.keelDir, "refunds.log");
}

function refundTools(store: Store): ToolRegistry {
  const tools = new ToolRegistry();
  tools.register(
    {
      name: "refund",
      namespace: "payments",
      version: "1.0.0",
      description: "Refunds an order through the payment provider",
      input_schema: {
        type: "object",
        properties: { order: { type: "string" }, amount: { type: "number" } },
        required: ["order", "amount"],
      },
      output_schema: {
        type: "object",
        properties: { receipt: { type: "string" } },
        required: ["receipt"],
      },
      side_effects: "external",
      permissions: ["payments:refund"],
      cost_estimate: "0.30",
    },
    (input, context) => {
      const { order, amount } = input as { order: string; amount: number };
      appendFileSync(refundsLog(store), `${context.idempotencyKey} refund ${order} ${amount}\n`);
      return { receipt: `R-${order}-${amount}` };
    },
  );
  tools.register(
    {
      name: "send",
      namespace: "email",
      version: "1.0.0",
      description: "Emails a customer",
      input_schema: {
        type: "object",
        properties: { to: { type: "string" }, body: { type: "string" } },
      },
      output_schema: { type: "object" },
      side_effects: "external",
    },
    () => ({}),
    // A preview gate shows the email before it is sent, without asking anyone.
    { dryRun: (input) => ({ would_send: input }) },
  );
  return tools;
}

const Refund = Annotation.Root({
  order: Annotation<string>(),
  amount: Annotation<number>(),
  receipt: Annotation<string>(),
});

/** refund (waits for an approval at the run's high risk) → notify (previewed, then sent). */
function refundGraph(runtime: GovernedRuntime) {
  return new StateGraph(Refund)
    .addNode(
      "refund",
      governedNode(async (state: { order: string; amount: number }, ctx) => {
        const out = (await ctx.call("payments.refund", {
          order: state.order,
          amount: state.amount,
        })) as { receipt: string };
        return { receipt: out.receipt };
      }),
    )
    .addNode(
      "notify",
      governedNode(async (state: { order: string; receipt: string }, ctx) => {
        await ctx.call("email.send", {
          to: `customer-${state.order}@example.com`,
          body: `Refunded: ${state.receipt}`,
        });
        return {};
      }),
    )
    .addEdge(START, "refund")
    .addEdge("refund", "notify")
    .addEdge("notify", END)
    .compile({ checkpointer: runtime.checkpointer });
}

export const keelApp: GovernedAppFactory = ({ store }) => ({
  tools: refundTools(store),
  graph: refundGraph,
});
