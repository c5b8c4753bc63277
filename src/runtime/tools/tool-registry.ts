import { KeelError } from "../../core/index.js";
import { type ToolSpec, ToolSpecSchema } from "../../ir/index.js";
import { problemsFromZodIssues, type ValidationProblem } from "../validation/problems.js";
import { type CompiledSchema, compileJsonSchema } from "./json-schema-validator.js";

/** What the ledger hands a tool with each call. */
export interface ToolCallContext {
  /** The same on every retry of the same step: pass it on so the other side can dedupe. */
  idempotencyKey: string;
  toolCallId: string;
  traceId: string;
  /**
   * The fencing token of this claim on the call: larger than the token of every earlier claim
   * of the same tool and idempotency key (a retry after a lapse, a new call after an operator
   * settled the old one `failed`). Pass it with the effect to a system that keeps the largest
   * token it has seen per key and refuses a smaller one: a worker that wakes up after its call
   * was taken over is then refused by the system itself, whatever the time on its clock.
   *
   * @example
   * await bank.pay({ ...input, idempotencyKey: context.idempotencyKey, fence: context.fence });
   * // bank side: UPDATE fences SET fence = $fence WHERE key = $key AND fence < $fence → 0 rows: refuse
   */
  fence: number;
  /**
   * Re-checks, against the ledger, that this call is still this worker's: not settled by an
   * operator, not taken over by recovery, its lease unexpired. The ledger does this itself
   * before calling a tool with effects whose claim may have lapsed; call it as the last thing
   * before the effect commits (inside your own transaction when the effect is one): a worker
   * frozen past its lease gets `TOOL_CALL_LATE` (audited `tool_call.late`) instead of acting twice.
   *
   * @example
   * await db.transaction(async (tx) => { await context.checkClaim(); await tx.pay(input); });
   */
  checkClaim(): Promise<void>;
}

/** The code behind a tool. Throw `ToolFailure` when the effect certainly did not happen. */
export type ToolHandler = (input: unknown, context: ToolCallContext) => unknown;

/** A tool ready to call: its spec, its handler and its compiled schemas. */
export interface RegisteredTool {
  /** `namespace.name`. */
  readonly id: string;
  readonly spec: ToolSpec;
  readonly handler: ToolHandler;
  /**
   * Whether the tool acts on the world (`side_effects` `write` or `external`): its calls pass the
   * gate, and an error or a bad answer leaves their effect in doubt.
   */
  readonly hasEffects: boolean;
  /**
   * Whether a call whose outcome is unknown may be run again: tools without effects (`none`,
   * `read`) and tools that declare an idempotency key (`idempotency_key` in the spec names how
   * they dedupe). Other calls in doubt go to an operator.
   */
  readonly retrySafe: boolean;
  /**
   * What the call would do, without doing it: run for a `preview` gate. A tool without one cannot
   * be previewed, so a `preview` gate escalates to `confirm`.
   */
  readonly dryRun: ToolHandler | null;
  validateInput(value: unknown): ValidationProblem[];
  validateOutput(value: unknown): ValidationProblem[];
}

/**
 * The tools a runtime may call, by `namespace.name`. Specs are seed-000 ToolSpecs (validated
 * with the IR's model); input and output are checked against their JSON Schemas on every call.
 *
 * @example
 * const tools = new ToolRegistry();
 * tools.register({ name: "append", namespace: "fs", version: "1.0.0", description: "Append a line",
 *   input_schema: { type: "object", properties: { line: { type: "string" } }, required: ["line"] },
 *   output_schema: { type: "object" }, side_effects: "write", idempotency_key: "line_id" },
 *   async (input) => ({ ok: true }));
 */
export class ToolRegistry {
  readonly #tools = new Map<string, RegisteredTool>();

  /**
   * Registers a tool; refuses an invalid spec (every problem listed) or a taken id. `dryRun`
   * describes what a call would do without doing it (used by `preview` gates).
   */
  register(
    spec: unknown,
    handler: ToolHandler,
    options: { dryRun?: ToolHandler } = {},
  ): RegisteredTool {
    const parsed = ToolSpecSchema.safeParse(spec);
    if (!parsed.success) {
      const problems = problemsFromZodIssues(parsed.error.issues, spec);
      throw new KeelError("TOOL_SPEC_INVALID", "The tool spec is invalid.", {
        details: { problems },
        hint: problems.map((p) => `${p.path}: ${p.message}`).join("; "),
      });
    }
    const toolSpec = parsed.data;
    const id = `${toolSpec.namespace}.${toolSpec.name}`;
    const hasEffects = toolSpec.side_effects === "write" || toolSpec.side_effects === "external";
    const policy = toolSpec.replay_policy;
    if (hasEffects && (policy === "rerun" || policy === "recorded-result")) {
      // A replay must never act on the world again.
      throw new KeelError(
        "TOOL_SPEC_INVALID",
        `Tool "${id}" has side effects (${toolSpec.side_effects}), so a replay must not run it again: replay_policy "${policy}" is for tools without effects.`,
        {
          details: {
            problems: [
              {
                code: "value_error",
                path: "/replay_policy",
                message: `"${policy}" is only for tools whose side_effects are none or read.`,
                expected: '"must_stub", "must-stub", "fail-loud" or "skip"',
                actual: `"${policy}"`,
                hint: 'Use "must_stub" (answered from the ledger), "fail-loud" or "skip".',
              },
            ],
          },
          hint: 'Use replay_policy "must_stub" (the default: answered from the ledger), "fail-loud" (a replay reaching the call fails) or "skip".',
        },
      );
    }
    if (this.#tools.has(id)) {
      throw new KeelError("DUPLICATE", `A tool "${id}" is already registered.`, {
        details: { id },
        hint: "Give the tool another name or namespace, or build a new registry.",
      });
    }
    const tool: RegisteredTool = Object.freeze({
      id,
      spec: toolSpec,
      handler,
      dryRun: options.dryRun ?? null,
      hasEffects,
      retrySafe: !hasEffects || toolSpec.idempotency_key !== null,
      validateInput: compile(id, "input_schema", toolSpec.input_schema),
      validateOutput: compile(id, "output_schema", toolSpec.output_schema),
    });
    this.#tools.set(id, tool);
    return tool;
  }

  /** The tool registered as `id`, or `TOOL_NOT_FOUND` naming the ones that exist. */
  get(id: string): RegisteredTool {
    const tool = this.#tools.get(id);
    if (tool) return tool;
    const known = [...this.#tools.keys()].sort();
    throw new KeelError("TOOL_NOT_FOUND", `No tool "${id}" is registered.`, {
      details: { id, known },
      hint:
        known.length === 0
          ? "Register the tool before calling it."
          : `Registered tools: ${known.join(", ")}.`,
    });
  }

  has(id: string): boolean {
    return this.#tools.has(id);
  }

  /** Every registered tool, by id. */
  list(): RegisteredTool[] {
    return [...this.#tools.values()].sort((a, b) => a.id.localeCompare(b.id));
  }
}

function compile(id: string, field: string, schema: Record<string, unknown>): CompiledSchema {
  try {
    return compileJsonSchema(schema);
  } catch (error) {
    throw new KeelError(
      "TOOL_SPEC_INVALID",
      `The ${field} of tool "${id}" is not a valid JSON Schema.`,
      {
        cause: error,
        details: { id, field, reason: (error as Error).message },
        hint: `Fix ${field}: ${(error as Error).message}`,
      },
    );
  }
}
