/** A governed application module (`keelApp`) whose one write call can be left in doubt. */
import { type GovernedAppFactory, ToolRegistry } from "../../../src/runtime/index.js";
import { oneCallGraph } from "./governed.js";

/** What the module's tool did, in this process, and how its next call goes wrong. */
export const chargeWorld: {
  charges: string[];
  /** The next call throws a plain error before or after its effect (outcome unknown). */
  crashNext: "before" | "after" | null;
  /** The order the graph charges next. */
  order: string;
} = { charges: [], crashNext: null, order: "o-1" };

export function chargeTools(): ToolRegistry {
  const tools = new ToolRegistry();
  tools.register(
    {
      name: "charge",
      namespace: "ops",
      version: "1.0.0",
      description: "charges an order (not retry-safe)",
      input_schema: {
        type: "object",
        properties: { order: { type: "string" } },
        required: ["order"],
        additionalProperties: false,
      },
      output_schema: {
        type: "object",
        properties: { receipt: { type: "string" }, amount: { type: "number" } },
        required: ["receipt", "amount"],
        additionalProperties: false,
      },
      side_effects: "write",
    },
    (input) => {
      const { order } = input as { order: string };
      const crash = chargeWorld.crashNext;
      chargeWorld.crashNext = null;
      if (crash === "before") throw new Error("connection reset before the request was sent");
      chargeWorld.charges.push(order);
      if (crash === "after") throw new Error("connection reset after the request was sent");
      return { receipt: `rc-${order}-${chargeWorld.charges.length}`, amount: 10 };
    },
  );
  return tools;
}

export const keelApp: GovernedAppFactory = () => ({
  tools: chargeTools(),
  graph: (runtime) => oneCallGraph(runtime, "ops.charge", () => ({ order: chargeWorld.order })),
});
