import { describe, expect, it } from "vitest";
import { isKeelError } from "../../src/core/index.js";
import { assertProfileAllows, profileAllows, ToolRegistry } from "../../src/runtime/index.js";
import { spec } from "./support/tools.js";

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("tool registry", () => {
  it("registers seed-000 ToolSpecs by namespace.name and validates input and output", () => {
    const tools = new ToolRegistry();
    const tool = tools.register(spec("append", "write"), () => ({ count: 1 }));
    expect(tool.id).toBe("test.append");
    expect(tool.spec.replay_policy).toBe("must_stub");
    expect(tools.get("test.append")).toBe(tool);
    expect(tool.validateInput({ line: "x" })).toEqual([]);
    expect(tool.validateInput({ line: "", extra: 1 }).map((p) => [p.code, p.path])).toEqual([
      ["extra_forbidden", "/extra"],
      ["schema_minLength", "/line"],
    ]);
    expect(tool.validateInput({})).toEqual([
      expect.objectContaining({ code: "missing", path: "/line" }),
    ]);
    expect(tool.validateOutput({ count: "many" })).toEqual([
      expect.objectContaining({
        code: "schema_type",
        path: "/count",
        expected: "integer",
        actual: '"many"',
      }),
    ]);
  });

  it("refuses the replay policies that run a tool again for a tool with effects (a replay must never act again)", () => {
    const tools = new ToolRegistry();
    for (const policy of ["rerun", "recorded-result"]) {
      for (const effects of ["write", "external"]) {
        const error = thrown(() =>
          tools.register(spec(`x_${effects}`, effects, { replay_policy: policy }), () => ({})),
        );
        expect(isKeelError(error) && error.code).toBe("TOOL_SPEC_INVALID");
        expect(isKeelError(error) && error.message).toContain(`"${policy}"`);
      }
      for (const effects of ["none", "read"]) {
        const tool = tools.register(
          spec(`y_${effects}_${policy}`, effects, { replay_policy: policy }),
          () => ({}),
        );
        expect(tool.spec.replay_policy).toBe(policy);
      }
    }
    for (const policy of ["skip", "must-stub", "fail-loud"]) {
      const id = `z_${policy.replace("-", "_")}`;
      expect(tools.register(spec(id, "write", { replay_policy: policy }), () => ({})).id).toBe(
        `test.${id}`,
      );
    }
  });

  it("takes a cost estimate only as a decimal string (money is never a float)", () => {
    const tools = new ToolRegistry();
    expect(
      tools.register(spec("a", "read", { cost_estimate: "0.0025" }), () => ({})).spec,
    ).toMatchObject({ cost_estimate: "0.0025" });
    const error = thrown(() =>
      tools.register(spec("b", "read", { cost_estimate: 0.25 }), () => ({})),
    );
    expect(isKeelError(error) && error.code).toBe("TOOL_SPEC_INVALID");
    expect(isKeelError(error) && JSON.stringify(error.details)).toContain("/cost_estimate");
  });

  it("checks formats and honours draft-07 schemas", () => {
    const tools = new ToolRegistry();
    const tool = tools.register(
      {
        ...spec("mail", "external"),
        input_schema: {
          $schema: "http://json-schema.org/draft-07/schema#",
          type: "object",
          properties: { to: { type: "string", format: "email" } },
          required: ["to"],
        },
      },
      () => ({ count: 1 }),
    );
    expect(tool.validateInput({ to: "ana@example.com" })).toEqual([]);
    expect(tool.validateInput({ to: "not an address" })[0]).toMatchObject({
      code: "schema_format",
      path: "/to",
      expected: "format email",
    });
  });

  it("knows which tools are safe to run again when an outcome is unknown", () => {
    const tools = new ToolRegistry();
    const handler = () => ({ count: 1 });
    expect(tools.register(spec("a", "none"), handler).retrySafe).toBe(true);
    expect(tools.register(spec("b", "read"), handler).retrySafe).toBe(true);
    expect(tools.register(spec("c", "write"), handler).retrySafe).toBe(false);
    expect(
      tools.register(spec("d", "external", { idempotency_key: "Idempotency-Key" }), handler)
        .retrySafe,
    ).toBe(true);
  });

  it("refuses an invalid spec with every problem, a bad schema, and a taken id", () => {
    const tools = new ToolRegistry();
    const invalid = thrown(() =>
      tools.register({ ...spec("x", "sometimes"), colour: "red" }, () => 1),
    );
    expect(isKeelError(invalid) && invalid.code).toBe("TOOL_SPEC_INVALID");
    if (isKeelError(invalid)) {
      expect((invalid.details.problems as { path: string }[]).map((p) => p.path).sort()).toEqual([
        "/colour",
        "/side_effects",
      ]);
    }
    const badSchema = thrown(() =>
      tools.register({ ...spec("y", "read"), input_schema: { type: "nonsense" } }, () => 1),
    );
    expect(isKeelError(badSchema) && badSchema.code).toBe("TOOL_SPEC_INVALID");
    tools.register(spec("z", "read"), () => 1);
    const duplicate = thrown(() => tools.register(spec("z", "read"), () => 1));
    expect(isKeelError(duplicate) && duplicate.code).toBe("DUPLICATE");
  });

  it("names the registered tools when one is not found", () => {
    const tools = new ToolRegistry();
    tools.register(spec("append", "write"), () => 1);
    const error = thrown(() => tools.get("test.apend"));
    expect(isKeelError(error) && error.code).toBe("TOOL_NOT_FOUND");
    expect(isKeelError(error) && error.hint).toBe("Registered tools: test.append.");
  });

  it("lets the cleared profile run only tools without outward effects", () => {
    expect(
      ["none", "read", "write", "external"].map((s) => profileAllows("cleared", s as never)),
    ).toEqual([true, true, false, false]);
    expect(
      ["none", "read", "write", "external"].every((s) => profileAllows("default", s as never)),
    ).toBe(true);
    const error = thrown(() => assertProfileAllows("cleared", "fs.write", "write"));
    expect(isKeelError(error) && error.code).toBe("TOOL_FORBIDDEN");
  });
});
