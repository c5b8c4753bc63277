import { describe, expect, it } from "vitest";
import { coerceLegacyToolSpec, validateModel } from "../../src/ir/index.js";

const legacy = {
  name: "send",
  namespace: "mail",
  version: "0.1.0",
  description: "Send mail",
  input_schema: {},
  output_schema: {},
};

describe("coerceLegacyToolSpec", () => {
  const warnings: Error[] = [];
  const listener = (warning: Error) => warnings.push(warning);
  process.on("warning", listener);

  it("maps true to write and false to none, warning once per process", async () => {
    const writes = coerceLegacyToolSpec({ ...legacy, side_effects: true });
    const none = coerceLegacyToolSpec({ ...legacy, side_effects: false });
    expect(writes.side_effects).toBe("write");
    expect(none.side_effects).toBe("none");
    expect(validateModel("ToolSpec", writes)).toEqual([]);
    expect(validateModel("ToolSpec", none)).toEqual([]);
    // process warnings are emitted on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    process.off("warning", listener);
    const ours = warnings.filter(
      (w) => (w as { code?: string }).code === "KEEL_IR_LEGACY_SIDE_EFFECTS",
    );
    expect(ours).toHaveLength(1);
    expect(ours[0]?.name).toBe("DeprecationWarning");
  });

  it("leaves current specs and non-objects alone, and the boolean form is invalid without it", () => {
    const current = { ...legacy, side_effects: "read" };
    expect(coerceLegacyToolSpec(current)).toBe(current);
    expect(coerceLegacyToolSpec(null)).toBeNull();
    expect(coerceLegacyToolSpec([1])).toEqual([1]);
    const input = { ...legacy, side_effects: true };
    expect(validateModel("ToolSpec", input).map((p) => p.code)).toEqual(["literal_error"]);
    coerceLegacyToolSpec(input);
    expect(input.side_effects).toBe(true);
  });
});
