/**
 * The ledger's request hash: with the default redaction it writes the envelope's canonical JSON
 * itself; it must stay byte-identical to canonicalJson(redactSecrets(envelope)), which approvals
 * and replays compare against.
 */
import { afterAll, describe, expect, it } from "vitest";
import { canonicalJson, sha256Hex } from "../../src/core/index.js";
import { AuditWriter, ToolLedger } from "../../src/runtime/index.js";
import { redactSecrets } from "../../src/runtime/ledger/redact.js";
import { sqliteRuntimeHarness } from "./support/harness.js";
import { testTools, type World } from "./support/tools.js";

const harness = sqliteRuntimeHarness();
afterAll(() => harness.cleanup());

const INPUTS: unknown[] = [
  { line: "hello" },
  { z: 1, a: [3, { token: "s3cret", b: null }], m: { password: "x", keep: "ü ✓ \u2028" } },
  { nested: { deeper: { api_key: "k", list: [{ Authorization: "Bearer t" }] } } },
  { skipped: undefined, kept: 0, quote: 'a "b" \\ c' },
  [1, "two", { secret: 3 }],
  "a plain string",
  42,
  null,
  undefined,
];

describe("the ledger's request hash", () => {
  it("is canonicalJson of the redacted envelope, with the default redaction", async () => {
    const store = await harness.open("request_hash");
    const world: World = { lines: [], calls: 0 };
    const tools = testTools(world);
    const ledger = new ToolLedger({ store, tools, audit: new AuditWriter(store) });
    // Tools and actions interleaved: the ledger quotes a tool's envelope once per action.
    for (const input of INPUTS) {
      for (const [name, action] of [
        ["test.append", "append"],
        ["test.read", "read"],
        ["test.append", 'odd "action"'],
        ["test.append", 'odd "action"'],
        ["test.read", "append"],
      ] as const) {
        const tool = tools.get(name);
        const envelope = { tool: tool.id, version: tool.spec.version, action, input };
        const expected = canonicalJson(redactSecrets(envelope));
        const got = ledger.hashRequest(tool, input, action);
        expect(got.json).toBe(expected);
        expect(got.hash).toBe(sha256Hex(expected));
        expect(got.redacted).toEqual(redactSecrets(envelope));
      }
    }
  });

  it("uses a redactor the ledger was given", async () => {
    const store = await harness.open("request_hash_custom");
    const tools = testTools({ lines: [], calls: 0 });
    const ledger = new ToolLedger({
      store,
      tools,
      audit: new AuditWriter(store),
      redact: (request) => ({ ...request, input: "hidden" }),
    });
    const got = ledger.hashRequest(tools.get("test.append"), { line: "x" }, "append");
    expect(JSON.parse(got.json)).toMatchObject({ input: "hidden", action: "append" });
  });
});
