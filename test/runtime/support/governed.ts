import { Annotation, END, START, StateGraph } from "../../../src/graph/index.js";
import {
  type GovernedRuntime,
  governedNode,
  type RetryPolicy,
  ToolFailure,
  ToolRegistry,
} from "../../../src/runtime/index.js";

/** The world the governed tests' tools act on. */
export interface Ledgered {
  refunds: string[];
  emails: string[];
  /** Make the next `n` refunds fail cleanly (ToolFailure, retryable). */
  failRefunds: number;
  /** Make the next refund throw after the effect (outcome unknown). */
  crashAfterRefund: boolean;
}

export function governedTools(world: Ledgered): ToolRegistry {
  const tools = new ToolRegistry();
  const object = (properties: Record<string, unknown>, required: string[]) => ({
    type: "object",
    properties,
    required,
    additionalProperties: false,
  });
  tools.register(
    {
      name: "refund",
      namespace: "payments",
      version: "1.0.0",
      description: "refunds an order",
      input_schema: object({ order: { type: "string" }, amount: { type: "number" } }, [
        "order",
        "amount",
      ]),
      output_schema: object({ receipt: { type: "string" } }, ["receipt"]),
      side_effects: "external",
      permissions: ["payments:refund"],
    },
    (input) => {
      const { order, amount } = input as { order: string; amount: number };
      if (world.failRefunds > 0) {
        world.failRefunds -= 1;
        throw new ToolFailure("PAYMENTS_DOWN", "the payment provider is down", { retryable: true });
      }
      world.refunds.push(`${order}:${amount}`);
      if (world.crashAfterRefund) {
        world.crashAfterRefund = false;
        throw new Error("connection reset after the request was sent");
      }
      return { receipt: `r-${order}-${world.refunds.length}` };
    },
    { dryRun: (input) => ({ would_refund: input }) },
  );
  tools.register(
    {
      name: "send",
      namespace: "email",
      version: "1.0.0",
      description: "sends an email",
      input_schema: object({ to: { type: "string" }, body: { type: "string" } }, ["to", "body"]),
      output_schema: object({ sent: { type: "boolean" } }, ["sent"]),
      side_effects: "external",
    },
    (input) => {
      world.emails.push((input as { to: string }).to);
      return { sent: true };
    },
    { dryRun: (input) => ({ would_send: input }) },
  );
  tools.register(
    {
      name: "lookup",
      namespace: "orders",
      version: "1.0.0",
      description: "reads an order",
      input_schema: object({ order: { type: "string" } }, ["order"]),
      output_schema: object({ amount: { type: "number" } }, ["amount"]),
      side_effects: "read",
    },
    (input) => ({ amount: (input as { order: string }).order === "big" ? 900 : 25 }),
  );
  return tools;
}

const RefundState = Annotation.Root({
  order: Annotation<string>(),
  amount: Annotation<number>(),
  receipt: Annotation<string>(),
  notified: Annotation<boolean>(),
  rounds: Annotation<number>(),
});

/**
 * lookup (read) → refund (external, gated) → notify (external); with `loops`, refund runs that many
 * times (a node visited again must make new calls, not replay the first visit's).
 */
export function refundGraph(
  runtime: GovernedRuntime,
  options: { loops?: number; retry?: boolean | RetryPolicy } = {},
) {
  const loops = options.loops ?? 1;
  return new StateGraph(RefundState)
    .addNode(
      "lookup",
      governedNode(async (state: { order: string }, ctx) => {
        const found = (await ctx.call("orders.lookup", { order: state.order })) as {
          amount: number;
        };
        return { amount: found.amount, rounds: 0 };
      }),
    )
    .addNode(
      "refund",
      governedNode(
        async (state: { order: string; amount: number; rounds: number }, ctx) => {
          const out = (await ctx.call("payments.refund", {
            order: state.order,
            amount: state.amount,
          })) as { receipt: string };
          return { receipt: out.receipt, rounds: state.rounds + 1 };
        },
        options.retry
          ? {
              retry:
                options.retry === true
                  ? { strategy: "fixed", base_delay_ms: 5, max_delay_ms: 5, jitter: false }
                  : options.retry,
              maxAttempts: 3,
            }
          : {},
      ),
    )
    .addNode(
      "notify",
      governedNode(async (state: { order: string; receipt: string }, ctx) => {
        await ctx.call(
          "email.send",
          { to: `${state.order}@example.com`, body: state.receipt },
          { risk: "low" },
        );
        return { notified: true };
      }),
    )
    .addEdge(START, "lookup")
    .addEdge("lookup", "refund")
    .addConditionalEdges("refund", (state: { rounds: number }) =>
      state.rounds < loops ? "refund" : "notify",
    )
    .addEdge("notify", END)
    .compile({ checkpointer: runtime.checkpointer });
}

const CallState = Annotation.Root({ out: Annotation<unknown>() });

/** One governed node making one call, `ctx.call(tool, input(), options)`; `input` is read per run. */
export function oneCallGraph(
  runtime: GovernedRuntime,
  tool: string,
  input: () => unknown,
  options: { risk?: "low" | "medium" | "high" | "critical" } = {},
) {
  return new StateGraph(CallState)
    .addNode(
      "act",
      governedNode(async (_state, ctx) => ({ out: await ctx.call(tool, input(), options) })),
    )
    .addEdge(START, "act")
    .addEdge("act", END)
    .compile({ checkpointer: runtime.checkpointer });
}

/**
 * A read tool (`shop.price`) and an external one (`chat.notify`), by default replayed by running
 * the read again and skipping the post.
 */
export function replayPolicyTools(
  seen: { lookups: string[]; sent: string[] },
  policies: { price: string; notify: string } = { price: "rerun", notify: "skip" },
): ToolRegistry {
  const tools = new ToolRegistry();
  const object = { type: "object" };
  tools.register(
    {
      name: "price",
      namespace: "shop",
      version: "1.0.0",
      description: "reads a price",
      input_schema: { ...object, properties: { item: { type: "string" } }, required: ["item"] },
      output_schema: object,
      side_effects: "read",
      replay_policy: policies.price,
    },
    (input) => {
      seen.lookups.push((input as { item: string }).item);
      return { price: (input as { item: string }).item.length };
    },
  );
  tools.register(
    {
      name: "notify",
      namespace: "chat",
      version: "1.0.0",
      description: "posts a message",
      input_schema: object,
      output_schema: object,
      side_effects: "external",
      replay_policy: policies.notify,
    },
    (input) => {
      seen.sent.push(JSON.stringify(input));
      return { posted: true };
    },
  );
  return tools;
}

const PriceState = Annotation.Root({
  item: Annotation<string>(),
  price: Annotation<unknown>(),
  posted: Annotation<unknown>(),
});

/** One node: price the item (read, rerun on replay), then post it (external, skipped on replay). */
export function priceGraph(runtime: GovernedRuntime) {
  return new StateGraph(PriceState)
    .addNode(
      "quote",
      governedNode(async (state: { item: string }, ctx) => {
        const price = await ctx.call("shop.price", { item: state.item });
        const posted = await ctx.call("chat.notify", { text: JSON.stringify(price) });
        return { price, posted };
      }),
    )
    .addEdge(START, "quote")
    .addEdge("quote", END)
    .compile({ checkpointer: runtime.checkpointer });
}
