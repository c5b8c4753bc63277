import { z } from "zod";
import { tooDeepProblem } from "../../ir/problems.js";
import { problemsFromZodIssues, type ValidationResult } from "../validation/problems.js";
import { Approval } from "./approval.js";
import { AuditEvent } from "./audit-event.js";
import { addCrossFieldConstraints } from "./cross-field-schema.js";
import { MessageEvent } from "./message-event.js";
import { ErrorDetail } from "./primitives.js";
import { GateSpec, RoutingDecision } from "./routing-decision.js";
import { RetryPolicy, Step, Task } from "./task.js";
import { ToolCall, ToolResult } from "./tool-call.js";

/** Every seed-003 contract by name, the names the seed gives them. */
export const CONTRACTS = {
  MessageEvent,
  RoutingDecision,
  GateSpec,
  Task,
  Step,
  RetryPolicy,
  ToolCall,
  ToolResult,
  AuditEvent,
  Approval,
  ErrorDetail,
} as const;

/** The name of a seed-003 contract. */
export type ContractName = keyof typeof CONTRACTS;

/** The parsed (output) type of a contract. */
export type ContractOf<N extends ContractName> = z.output<(typeof CONTRACTS)[N]>;

/** The names of every contract, in the seed's order. */
export const CONTRACT_NAMES = Object.keys(CONTRACTS) as ContractName[];

/**
 * Validates `value` against a contract and returns the parsed value (defaults filled) or every
 * problem, each with a JSON Pointer path. Never throws.
 *
 * @example
 * const result = validateContract("ToolCall", JSON.parse(body));
 * if (!result.ok) for (const p of result.problems) console.log(p.path, p.message, p.hint);
 */
export function validateContract<N extends ContractName>(
  name: N,
  value: unknown,
): ValidationResult<ContractOf<N>> {
  const deep = tooDeepProblem(value, `The ${name}`);
  if (deep) return { ok: false, problems: [deep] };
  const schema: z.ZodType = CONTRACTS[name];
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data as ContractOf<N>, problems: [] };
  return { ok: false, problems: problemsFromZodIssues(parsed.error.issues, value) };
}

/** Which side of a contract a JSON Schema describes. */
export interface JsonSchemaOptions {
  /**
   * `"input"` (default): what a producer may send (fields with defaults are optional).
   * `"output"`: the stored, fully filled form (every field present).
   */
  io?: "input" | "output";
}

/**
 * The JSON Schema (draft 2020-12) of a contract, with `additionalProperties: false` throughout.
 * The models' cross-field rules that JSON Schema can state are in it as `allOf` of `if`/`then`
 * (an approved or denied Approval names who decided and when; exponential retries jitter);
 * those it cannot (one field compared with another, tz and language tag lists) are named in
 * `$comment` (see `cross-field-schema.ts`).
 *
 * @example
 * writeFileSync("message-event.schema.json", JSON.stringify(contractJsonSchema("MessageEvent")));
 */
export function contractJsonSchema(
  name: ContractName,
  options: JsonSchemaOptions = {},
): Record<string, unknown> {
  const schema = z.toJSONSchema(CONTRACTS[name], {
    io: options.io ?? "input",
    override: addCrossFieldConstraints,
  }) as Record<string, unknown>;
  return { ...schema, title: name };
}
