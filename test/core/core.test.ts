import { readFileSync } from "node:fs";
import { runInNewContext } from "node:vm";
import { describe, expect, it, vi } from "vitest";
import {
  blake2b128Hex,
  canonicalJson,
  exitCodeFor,
  hashValue,
  isKeelError,
  KeelError,
  newId,
  sha256Hex,
  toKeelError,
  VERSION,
} from "../../src/core/index.js";

describe("core", () => {
  it("recognises a KeelError made by another copy of the module or in another realm", async () => {
    vi.resetModules();
    const copy = await import("../../src/core/errors.js");
    const foreign = new copy.KeelError("NOT_FOUND", "from the other copy");
    expect(foreign instanceof KeelError).toBe(false);
    expect(isKeelError(foreign)).toBe(true);
    const otherRealm = runInNewContext(
      'const e = new Error("x"); e[Symbol.for("keel.error")] = true; e',
    ) as unknown;
    expect(isKeelError(otherRealm)).toBe(true);
    expect(isKeelError(new Error("plain"))).toBe(false);
    expect(isKeelError({ code: "NOT_FOUND" })).toBe(false);
  });

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

  it("makes valid UUIDv7 ids that increase within a millisecond and carry the time", () => {
    const before = Date.now();
    const ids = Array.from({ length: 5_000 }, () => newId());
    const after = Date.now();
    for (const [i, id] of ids.entries()) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      if (i > 0) expect(id > (ids[i - 1] as string)).toBe(true);
    }
    const millisOf = (id: string) => Number.parseInt(id.replace("-", "").slice(0, 12), 16);
    expect(millisOf(ids[0] as string)).toBeGreaterThanOrEqual(before);
    // The counter may carry into the next millisecond, never far.
    expect(millisOf(ids.at(-1) as string)).toBeLessThanOrEqual(after + 1);
    expect(new Set(ids).size).toBe(ids.length);
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
