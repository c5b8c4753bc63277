import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  blake2b128Hex,
  canonicalJson,
  exitCodeFor,
  hashValue,
  KeelError,
  newId,
  sha256Hex,
  toKeelError,
  VERSION,
} from "../../src/core/index.js";

describe("core", () => {
  it("keeps VERSION equal to package.json", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    expect(VERSION).toBe(pkg.version);
  });

  it("serialises canonically with sorted keys and no whitespace", () => {
    expect(canonicalJson({ b: 1, a: [true, null, { d: "x", c: 2 }] })).toBe(
      '{"a":[true,null,{"c":2,"d":"x"}],"b":1}',
    );
    expect(canonicalJson({ k: "é✓" }, { asciiOnly: true })).toBe('{"k":"\\u00e9\\u2713"}');
    expect(canonicalJson({ k: "😀" }, { asciiOnly: true })).toBe('{"k":"\\ud83d\\ude00"}');
    // Python's ensure_ascii escapes DEL too.
    expect(canonicalJson({ k: "\u007f" }, { asciiOnly: true })).toBe('{"k":"\\u007f"}');
    expect(() => canonicalJson(() => 1)).toThrow(TypeError);
  });

  it("hashes equal values equally", () => {
    expect(hashValue({ a: 1, b: 2 })).toBe(hashValue({ b: 2, a: 1 }));
    expect(sha256Hex("abc")).toBe(
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
    expect(blake2b128Hex("abc")).toBe("cf4ab791c62b8d2b2109c90275287816");
  });

  it("makes time-ordered ids", () => {
    const a = newId();
    const b = newId();
    expect(a).toMatch(/^[0-9a-f-]{36}$/);
    expect(a < b || a.slice(0, 13) === b.slice(0, 13)).toBe(true);
  });

  it("gives errors a stable code, exit code and JSON shape", () => {
    const error = new KeelError("NOT_FOUND", "No thread t1.", {
      hint: "List threads first.",
      details: { id: "t1" },
    });
    expect(error.message).toBe("No thread t1. List threads first.");
    expect(error.exitCode).toBe(5);
    expect(error.toJSON()).toEqual({
      ok: false,
      error: { code: "NOT_FOUND", message: error.message, details: { id: "t1" } },
    });
    expect(exitCodeFor("DUPLICATE")).toBe(3);
    const wrapped = toKeelError(new Error("boom"));
    expect(wrapped.code).toBe("INTERNAL");
    expect(wrapped.cause).toBeInstanceOf(Error);
    expect(toKeelError(error)).toBe(error);
  });
});
