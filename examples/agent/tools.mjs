/**
 * The tools of the agent written as an IR document (agent.json): run it with
 *
 *   KEEL_OPENAI_BASE_URL=http://127.0.0.1:11434/v1 npx keel run examples/agent/agent.json \
 *     --kinds examples/agent/tools.mjs --input '{"request":"Pay Bob 50 euros."}'
 *
 * `payments.pay` is an external effect declared `risk:high`: at autonomy A2 a person approves it
 * (`keel approvals approve <id> --capability approve:payments.pay`), then `keel runs resume <run>`.
 * The payment stub pays nobody: its receipt is derived from the request, as an idempotent
 * payment service's answer would be.
 */
export const nodeKinds = {};

const object = (properties, required) => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});

export const tools = [
  {
    spec: {
      name: "pay",
      namespace: "payments",
      version: "1.0.0",
      description: "Pays an amount in euros to a person.",
      input_schema: object({ to: { type: "string" }, amount: { type: "number" } }, [
        "to",
        "amount",
      ]),
      output_schema: object({ receipt: { type: "string" } }, ["receipt"]),
      side_effects: "external",
      tags: ["payments", "risk:high"],
    },
    handler: (input) => ({ receipt: `paid-${input.to}-${input.amount}` }),
  },
  {
    spec: {
      name: "balance",
      namespace: "accounts",
      version: "1.0.0",
      description: "Reads the account balance in euros.",
      input_schema: object({}, []),
      output_schema: object({ balance: { type: "number" } }, ["balance"]),
      side_effects: "read",
      tags: ["risk:low"],
    },
    handler: () => ({ balance: 120 }),
  },
];
