/**
 * The agent crash test's application: a governed `createReactAgent` whose model asks for
 * PAYMENTS payments one after another (`payments.pay`, an external effect: the tool appends its
 * idempotency key to a file), then answers. The model decides from the messages alone, so the
 * killed child and the recovering parent hear the same answers. Shared by both.
 */
import { appendFileSync } from "node:fs";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { createReactAgent, governedToolNode } from "../../../src/agents/index.js";
import {
  type GovernedGraph,
  type GovernedRuntime,
  ToolRegistry,
} from "../../../src/runtime/index.js";

export const PAYMENTS = 3;
export const FINAL_ANSWER = `paid ${PAYMENTS} times`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Pays `payment-<n>` while fewer than PAYMENTS tool answers came back, then answers. */
class PayingModel extends BaseChatModel {
  _llmType(): string {
    return "paying";
  }
  override bindTools(): this {
    return this;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const paid = messages.filter((m) => m.getType() === "tool").length;
    const message =
      paid >= PAYMENTS
        ? new AIMessageChunk({ content: FINAL_ANSWER })
        : new AIMessageChunk({
            content: "",
            tool_calls: [
              { id: `payment-${paid}`, name: "pay", args: { to: "bob", amount: 10 + paid } },
            ],
          });
    return { generations: [{ text: String(message.content), message }] };
  }
}

/**
 * `onPhase` hears `before` (the call's `attempted` is committed, the payment not yet made) and
 * `after` (made, `succeeded` not yet committed): the kills are aimed at these instants.
 */
export function paymentTools(
  effectsFile: string,
  onPhase?: (phase: "before" | "after") => void,
): ToolRegistry {
  const tools = new ToolRegistry();
  tools.register(
    {
      name: "pay",
      namespace: "payments",
      version: "1.0.0",
      description: "Pays someone.",
      input_schema: {
        type: "object",
        properties: { to: { type: "string" }, amount: { type: "number" } },
        required: ["to", "amount"],
      },
      output_schema: {
        type: "object",
        properties: { receipt: { type: "string" } },
        required: ["receipt"],
      },
      side_effects: "external",
    },
    async (_input, context) => {
      onPhase?.("before");
      await sleep(1);
      appendFileSync(effectsFile, `${context.idempotencyKey}\n`);
      onPhase?.("after");
      await sleep(2);
      return { receipt: context.idempotencyKey };
    },
  );
  return tools;
}

export function payingAgent(runtime: GovernedRuntime): GovernedGraph {
  const tools = governedToolNode({ runtime, tools: ["payments.pay"] });
  return createReactAgent({
    llm: new PayingModel({}),
    tools,
    checkpointer: runtime.checkpointer,
  }) as unknown as GovernedGraph;
}
