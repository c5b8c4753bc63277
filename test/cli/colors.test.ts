import { afterEach, describe, expect, it } from "vitest";
import { pc } from "../../src/cli/colors.js";

const saved = { NO_COLOR: process.env.NO_COLOR, FORCE_COLOR: process.env.FORCE_COLOR };
const ESC = "\u001b[";

afterEach(() => {
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

describe("CLI colours", () => {
  it("follow NO_COLOR and FORCE_COLOR as set at the time of printing, not at import", () => {
    delete process.env.NO_COLOR;
    process.env.FORCE_COLOR = "1";
    expect(pc.green("ok")).toContain(ESC);
    process.env.NO_COLOR = "1";
    expect(pc.green("ok")).toBe("ok");
    delete process.env.NO_COLOR;
    delete process.env.FORCE_COLOR;
    // A pipe (vitest's workers write to one) stays plain without FORCE_COLOR, CI or not.
    if (!process.stdout.isTTY) expect(pc.yellow("warn")).toBe("warn");
  });
});
