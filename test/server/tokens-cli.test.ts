import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { TokenStore, tokenHash } from "../../src/server/auth/token-store.js";
import { openStore } from "../../src/store/index.js";
import { keelInProcess } from "../store/cli-in-process.js";

const dir = mkdtempSync(join(tmpdir(), "keel-tokens-"));
const db = join(dir, "keel.db");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("keel tokens", () => {
  it("creates a token shown once and stored hashed, lists it, revokes it", async () => {
    const created = await keelInProcess([
      "tokens",
      "create",
      "--capability",
      "read",
      "approve:payments.refund",
      "--expires",
      "12h",
      "--name",
      "ops",
      "--db",
      db,
      "--json",
    ]);
    expect(created.exitCode).toBe(0);
    const token = created.json.token as {
      id: string;
      secret: string;
      capabilities: string[];
      expiresAt: number;
    };
    expect(token.secret).toMatch(/^keel_/);
    expect(token.capabilities).toEqual(["read", "approve:payments.refund"]);
    expect(token.expiresAt - Date.now()).toBeGreaterThan(11 * 3_600_000);

    const store = await openStore({ db });
    try {
      const rows = await store.kysely
        .withTables<{ config_api_tokens: { id: string; token_hash: string } }>()
        .selectFrom("config_api_tokens")
        .selectAll()
        .execute();
      // Only the hash is kept: the secret is nowhere in the database.
      expect(rows.map((r) => r.token_hash)).toEqual([tokenHash(token.secret)]);
      expect(JSON.stringify(rows)).not.toContain(token.secret);
      expect((await new TokenStore(store).verify(token.secret))?.name).toBe("ops");
    } finally {
      await store.close();
    }

    const listed = await keelInProcess(["tokens", "list", "--db", db, "--json"]);
    expect(listed.json.tokens).toEqual([expect.objectContaining({ id: token.id, state: "live" })]);
    expect(listed.stdout).not.toContain(token.secret);
    const revoked = await keelInProcess(["tokens", "revoke", token.id, "--db", db, "--json"]);
    expect(revoked.exitCode).toBe(0);
    const after = await keelInProcess(["tokens", "list", "--db", db, "--json"]);
    expect(after.json.tokens).toEqual([
      expect.objectContaining({ id: token.id, state: "revoked" }),
    ]);
  });

  it("refuses unknown capabilities, bad expiries and unknown ids with their exit codes", async () => {
    const bad = await keelInProcess([
      "tokens",
      "create",
      "--capability",
      "read",
      "sudo",
      "--db",
      db,
      "--json",
    ]);
    expect([bad.exitCode, (bad.json.error as { code: string }).code]).toEqual([
      2,
      "INVALID_ARGUMENT",
    ]);
    const expiry = await keelInProcess([
      "tokens",
      "create",
      "--capability",
      "read",
      "--expires",
      "soon",
      "--db",
      db,
      "--json",
    ]);
    expect(expiry.exitCode).toBe(2);
    const missing = await keelInProcess(["tokens", "revoke", "nope", "--db", db, "--json"]);
    expect([missing.exitCode, (missing.json.error as { code: string }).code]).toEqual([
      5,
      "TOKEN_NOT_FOUND",
    ]);
  });
});
