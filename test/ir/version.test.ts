import { describe, expect, it } from "vitest";
import { KeelError } from "../../src/core/index.js";
import {
  checkPackCompat,
  checkVersion,
  FACTS_VERSION,
  IR_VERSION,
  PackCompatError,
  type PackMount,
  PLUGIN_API_VERSION,
  parseVersion,
  validate,
} from "../../src/ir/index.js";

describe("versions", () => {
  it("understands IR 1.1.0 (and so every 1.x)", () => {
    expect(IR_VERSION).toBe("1.1.0");
  });

  it("parses MAJOR.MINOR.PATCH and refuses anything else", () => {
    expect(parseVersion("1.0.0")).toEqual([1, 0, 0]);
    expect(parseVersion("10.20.30")).toEqual([10, 20, 30]);
    for (const bad of ["1.0", "1.0.0.0", "v1.0.0", "1.0.x", "", " 1.0.0", "01.0.0", "1.0.0-rc1"]) {
      expect(() => parseVersion(bad)).toThrow(KeelError);
      try {
        parseVersion(bad);
      } catch (error) {
        expect((error as KeelError).code).toBe("IR_VERSION_INVALID");
      }
    }
  });

  it("returns one version_mismatch problem for another major", () => {
    expect(checkVersion({ ir_version: "1.0.0" })).toEqual([]);
    expect(checkVersion({ ir_version: "1.99.3" })).toEqual([]);
    const [problem, ...rest] = checkVersion({ ir_version: "2.0.0" });
    expect(rest).toEqual([]);
    expect(problem).toMatchObject({
      code: "version_mismatch",
      path: "/ir_version",
      actual: '"2.0.0"',
    });
    expect(problem?.hint).toMatch(/upgrade Keel/);
    expect(checkVersion({ ir_version: "0.1.0" })[0]?.hint).toMatch(/Migrate/);
  });

  it("leaves a missing or non-string ir_version to the structural stage", () => {
    expect(checkVersion({})).toEqual([]);
    expect(checkVersion({ ir_version: 1 })).toEqual([]);
    // The major gate skips a malformed version (as Stargraph's check_version does); validate
    // still refuses the document for it.
    expect(checkVersion({ ir_version: "one" })).toEqual([]);
    expect(validate({ ir_version: "one", id: "g", nodes: [] })[0]?.code).toBe("version_invalid");
  });
});

describe("checkPackCompat", () => {
  const pack = (requires: PackMount["requires"]): PackMount => ({
    id: "pack.x",
    version: "1.0.0",
    requires,
  });

  it("passes when requirements are absent or equal to what is provided", () => {
    expect(() => checkPackCompat(pack(null))).not.toThrow();
    expect(() =>
      checkPackCompat(pack({ stargraph_facts_version: null, api_version: null })),
    ).not.toThrow();
    expect(() =>
      checkPackCompat(
        pack({ stargraph_facts_version: FACTS_VERSION, api_version: PLUGIN_API_VERSION }),
      ),
    ).not.toThrow();
    expect(() =>
      checkPackCompat(pack({ stargraph_facts_version: "2.0", api_version: null }), {
        factsVersion: "2.0",
      }),
    ).not.toThrow();
  });

  it("raises PackCompatError on a facts or API version mismatch", () => {
    const facts = () => checkPackCompat(pack({ stargraph_facts_version: "2.0", api_version: "1" }));
    expect(facts).toThrow(PackCompatError);
    expect(facts).toThrow(/requires facts version 2.0; this build provides 1.0/);
    try {
      checkPackCompat(pack({ stargraph_facts_version: "1.0", api_version: "2" }));
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(PackCompatError);
      expect(error).toBeInstanceOf(KeelError);
      const compat = error as PackCompatError;
      expect(compat.code).toBe("PACK_INCOMPATIBLE");
      expect(compat.details).toEqual({
        pack: "pack.x",
        field: "api_version",
        required: "2",
        provided: "1",
      });
    }
    // Pinned-string equality: "1.0" is not "1.0.0".
    expect(() =>
      checkPackCompat(pack({ stargraph_facts_version: "1.0.0", api_version: null })),
    ).toThrow(PackCompatError);
  });
});
