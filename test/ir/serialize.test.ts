import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { canonicalJson, sha256Hex } from "../../src/core/index.js";
import {
  ACTION_KINDS,
  compileDocument,
  dumps,
  dumpsCanonical,
  graphHash,
  type IRDocumentInput,
  IrValidationError,
  isModelName,
  loads,
  type ModelName,
} from "../../src/ir/index.js";

interface Golden {
  name: string;
  model: string;
  wire: string;
  canonical: string;
  /** sha256 of the canonical form, by Python. */
  sha256: string;
  /** The same without the migrate list (IR documents). */
  graph_hash?: string;
}

const { fixtures } = JSON.parse(
  readFileSync(new URL("./fixtures/golden/round-trip.json", import.meta.url), "utf8"),
) as { fixtures: Golden[] };

function modelOf(golden: Golden): ModelName {
  if (!isModelName(golden.model)) throw new Error(`unknown model ${golden.model}`);
  return golden.model;
}

describe("golden round trips", () => {
  for (const golden of fixtures) {
    const model = modelOf(golden);
    it(`${golden.name}: dumps(loads(wire)) is the wire, byte for byte`, () => {
      const value = loads(golden.wire, model);
      expect(dumps(value, model)).toBe(golden.wire);
      expect(
        Buffer.from(dumps(value, model), "utf8").equals(Buffer.from(golden.wire, "utf8")),
      ).toBe(true);
    });
    it(`${golden.name}: the canonical form matches Python's sort_keys output`, () => {
      expect(dumpsCanonical(loads(golden.wire, model), model)).toBe(golden.canonical);
    });
  }

  for (const golden of fixtures.filter((g) => g.model === "IRDocument")) {
    it(`${golden.name}: the graph hash is sha256 of the canonical form without migrate`, () => {
      const doc = loads(golden.wire);
      expect(sha256Hex(dumpsCanonical(doc))).toBe(golden.sha256);
      expect(graphHash(doc)).toBe(golden.graph_hash);
      // Without migrate entries, it is the seed's sha256 over dumps_canonical itself.
      if (doc.migrate.length === 0) expect(graphHash(doc)).toBe(golden.sha256);
    });
  }

  it("covers every action kind, each written with its kind", () => {
    const everyAction = fixtures.find((g) => g.name === "every-action");
    const doc = loads(everyAction?.wire ?? "");
    const kinds = new Set(doc.rules.flatMap((rule) => rule.then.map((action) => action.kind)));
    expect([...kinds].sort()).toEqual([...ACTION_KINDS].sort());
    const wire = dumps(doc);
    for (const kind of ACTION_KINDS) expect(wire).toContain(`{"kind":"${kind}"`);
    // A halt with every field at its default still says what it is.
    expect(wire).toContain('"then":[{"kind":"halt"},');
  });

  it("keeps non-ASCII text as UTF-8, not escapes", () => {
    const doc = loads(fixtures.find((g) => g.name === "every-action")?.wire ?? "");
    const wire = dumps(doc);
    expect(wire).toContain("réussi ✓ — 完了");
    expect(wire).toContain("🙂");
    expect(wire).not.toContain("\\u");
  });
});

describe("dumps", () => {
  const authored: IRDocumentInput = {
    nodes: [{ kind: "echo", id: "a" }],
    id: "g",
    ir_version: "1.0.0",
    rules: [],
    state_class: null,
    governance: [{ id: "p", version: null, requires: null }],
  };

  it("writes declaration order whatever the input order, leaving out defaults", () => {
    expect(dumps(authored)).toBe(
      '{"ir_version":"1.0.0","id":"g","nodes":[{"id":"a","kind":"echo"}],"governance":[{"id":"p"}]}',
    );
  });

  it("keeps a value equal to a default only when it differs from it", () => {
    const doc = loads(
      '{"ir_version":"1.0.0","id":"g","nodes":[],"rules":[{"id":"r","when":"","then":[{"kind":"parallel","targets":["a"],"strategy":"all","join":"j"}]}]}',
    );
    expect(dumps(doc)).toBe(
      '{"ir_version":"1.0.0","id":"g","nodes":[],"rules":[{"id":"r","then":[{"kind":"parallel","targets":["a"],"join":"j"}]}]}',
    );
  });

  it("refuses to write an invalid value", () => {
    const invalid = {
      ir_version: "1.0.0",
      id: "g",
      nodes: [{ id: "a" }],
    } as unknown as IRDocumentInput;
    expect(() => dumps(invalid)).toThrow(IrValidationError);
  });

  it("hashes equal documents equally and different ones differently", () => {
    const reordered: IRDocumentInput = {
      ir_version: "1.0.0",
      id: "g",
      nodes: [{ id: "a", kind: "echo" }],
      governance: [{ id: "p" }],
    };
    expect(graphHash(authored)).toBe(graphHash(reordered));
    expect(graphHash({ ...reordered, id: "h" })).not.toBe(graphHash(reordered));
    expect(graphHash(authored)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("writes numbers as Python's json does; an integral float (1.0) is the one limit", () => {
    const payload = (text: string) =>
      `{"ir_version":"1.0.0","id":"g","nodes":[],"rules":[{"id":"r","then":[{"kind":"interrupt","prompt":"p","interrupt_payload":${text}}]}]}`;
    const python = payload('{"x":1e-05,"y":1.0,"z":1e+16}');
    const keel = dumps(loads(python));
    expect(keel).toBe(payload('{"x":1e-05,"y":1,"z":1e+16}'));
    expect(dumps(loads(keel))).toBe(keel);
    expect(dumpsCanonical(loads(python))).toContain(
      '"interrupt_payload":{"x":1e-05,"y":1,"z":1e+16}',
    );
  });

  it("leaves migrate out of the graph hash, so a document can name its own hash as to_hash", async () => {
    const base: IRDocumentInput = {
      ir_version: "1.0.0",
      id: "g",
      nodes: [{ id: "a", kind: "echo" }],
    };
    const own = graphHash(base);
    const migrated = { ...base, migrate: [{ from_hash: "f".repeat(64), to_hash: own }] };
    expect(graphHash(migrated)).toBe(own);
    // The hash a run records is the same function's.
    expect((await compileDocument(migrated)).graphHash).toBe(own);
  });
});

describe("loads", () => {
  it("fills every default", () => {
    const doc = loads('{"ir_version":"1.0.0","id":"g","nodes":[]}');
    expect(doc).toEqual({
      ir_version: "1.0.0",
      id: "g",
      nodes: [],
      rules: [],
      tools: [],
      skills: [],
      stores: [],
      state_schema: {},
      state_class: null,
      parallel: [],
      governance: [],
      migrate: [],
      checkpoints: null,
      lm: null,
    });
  });

  it("fills action defaults", () => {
    const rule = loads(
      '{"id":"r","then":[{"kind":"interrupt","prompt":"ok?"},{"kind":"retry","target":"a"}]}',
      "RuleSpec",
    );
    expect(rule).toEqual({
      id: "r",
      when: "",
      // biome-ignore lint/suspicious/noThenProperty: `then` is the IR's wire name.
      then: [
        {
          kind: "interrupt",
          prompt: "ok?",
          interrupt_payload: {},
          requested_capability: null,
          timeout: null,
          on_timeout: "halt",
        },
        { kind: "retry", target: "a", backoff_ms: 0 },
      ],
      node_id: null,
    });
  });

  it("throws IrValidationError carrying every problem", () => {
    try {
      loads('{"ir_version":1,"nodes":"x"}');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(IrValidationError);
      const problems = (error as IrValidationError).problems;
      expect(problems.map((p) => p.code)).toEqual(["string_type", "missing", "list_type"]);
      expect((error as IrValidationError).code).toBe("IR_INVALID");
      expect((error as IrValidationError).exitCode).toBe(1);
    }
    expect(() => loads("{")).toThrow(/IR JSON parse error/);
  });
});

describe("dumpsCanonical", () => {
  // It writes through a sorted copy and JSON.stringify; data with array-index-like keys, which
  // JavaScript orders first, goes through core canonicalJson. Both must give the same bytes.
  it("sorts every key as a string, array-index-like keys included", () => {
    const doc = {
      ir_version: "1.0.0",
      id: "g",
      nodes: [{ id: "a", kind: "echo" }],
      state_schema: { "10": "int", "2": "str", b: "any", a: "float", é: "str" },
    };
    expect(dumpsCanonical(doc)).toBe(
      '{"id":"g","ir_version":"1.0.0","nodes":[{"id":"a","kind":"echo"}],"state_schema":{"10":"int","2":"str","a":"float","b":"any","é":"str"}}',
    );
    const plain = { ...doc, state_schema: { z: "int", a: "str" } };
    expect(dumpsCanonical(plain)).toBe(canonicalJson(JSON.parse(dumps(plain))));
  });
});
