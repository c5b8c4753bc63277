import { newId } from "../../../src/core/index.js";
import {
  type ToolCallOutcome,
  ToolFailure,
  type ToolLedger,
  ToolRegistry,
} from "../../../src/runtime/index.js";

/** A world the test tools act on, so tests can see whether an effect happened. */
export interface World {
  lines: string[];
  calls: number;
  /** Make the next call throw this (after or before the effect, per `effectThenThrow`). */
  failNext?: { error: Error; effectThenThrow: boolean } | undefined;
}

export function spec(name: string, sideEffects: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    namespace: "test",
    version: "1.0.0",
    description: `${name} for tests`,
    input_schema: {
      type: "object",
      properties: { line: { type: "string", minLength: 1 }, token: { type: "string" } },
      required: ["line"],
      additionalProperties: false,
    },
    output_schema: {
      type: "object",
      properties: { count: { type: "integer" } },
      required: ["count"],
    },
    side_effects: sideEffects,
    ...extra,
  };
}

/** A `test.<name>` tool that takes and returns any object, for tests that watch the ledger, not
 * the schemas. */
export function openSpec(
  name: string,
  sideEffects: string,
  description: string,
  extra: Record<string, unknown> = {},
) {
  return {
    name,
    namespace: "test",
    version: "1.0.0",
    description,
    input_schema: { type: "object" },
    output_schema: { type: "object" },
    side_effects: sideEffects,
    ...extra,
  };
}

/** A registry with `test.append` (write, not retry-safe), `test.append_idem` (write, declares
 * idempotency), `test.append_later` (`test.append` answering through a promise), `test.read` (read), `test.bad_output` (write, returns garbage) and
 * `test.old_append` (write, deprecated), `test.priced_append` (write, costs "0.0025"). */
export function testTools(world: World): ToolRegistry {
  const tools = new ToolRegistry();
  const append = (input: unknown) => {
    world.calls += 1;
    const failure = world.failNext;
    world.failNext = undefined;
    if (failure && !failure.effectThenThrow) throw failure.error;
    world.lines.push((input as { line: string }).line);
    if (failure) throw failure.error;
    return { count: world.lines.length };
  };
  tools.register(spec("append", "write", { permissions: ["fs:write"] }), append);
  tools.register(spec("append_idem", "write", { idempotency_key: "request_id" }), append);
  // Answers after a turn of promises, as a tool doing I/O: calls made at once overlap.
  tools.register(spec("append_later", "write", { permissions: ["fs:write"] }), async (input) => {
    await Promise.resolve();
    return append(input);
  });
  tools.register(spec("read", "read"), () => {
    world.calls += 1;
    const failure = world.failNext;
    world.failNext = undefined;
    if (failure) throw failure.error;
    return { count: world.lines.length };
  });
  tools.register(spec("bad_output", "write"), () => ({ count: "many" }));
  tools.register(spec("old_append", "write", { deprecated: true }), append);
  tools.register(spec("priced_append", "write", { cost_estimate: "0.0025" }), append);
  return tools;
}

export { ToolFailure };

/**
 * `count` calls of `tool` (`test.append` by default) through `ledger` at once (one trace, keys
 * `key-0`…), as the group-commit tests of each dialect make them; resolves to their outcomes.
 */
export function appendAtOnce(
  ledger: ToolLedger,
  count: number,
  tool = "test.append",
): Promise<ToolCallOutcome[]> {
  const traceId = newId();
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      ledger.call({
        tool,
        input: { line: `line ${i}` },
        idempotencyKey: `key-${i}`,
        traceId,
        riskLevel: "low",
        autonomyLevel: "A4",
        capabilities: ["fs:write"],
      }),
    ),
  );
}
