import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { keelInProcess } from "../store/cli-in-process.js";

describe("keel memory (in process, SQLite)", () => {
  const dir = mkdtempSync(join(tmpdir(), "keel-memory-cli-"));
  const db = join(dir, "keel.db");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const keel = (...args: string[]) => keelInProcess(["memory", ...args, "--db", db, "--json"]);

  it("records, refuses a conflict with exit 3 naming the active id, supersedes, searches, shows", async () => {
    const first = await keel(
      "record",
      "--title",
      "Use PostgreSQL",
      "--target",
      "database",
      "--rationale",
      "ACID and JSONB support",
    );
    expect(first.exitCode).toBe(0);
    const id = (first.json.record as { id: string }).id;
    const conflict = await keel(
      "record",
      "--title",
      "Use MySQL",
      "--target",
      "database",
      "--rationale",
      "The team knows it well",
    );
    expect(conflict.exitCode).toBe(3);
    expect(conflict.json).toMatchObject({
      ok: false,
      error: { code: "MEMORY_CONFLICT", details: { activeIds: [id] } },
    });
    const replaced = await keel(
      "supersede",
      "--old",
      id,
      "--title",
      "Use MySQL",
      "--target",
      "database",
      "--rationale",
      "The team knows MySQL well",
    );
    expect(replaced.exitCode).toBe(0);
    const search = await keel("search", 'mysql" NEAR * --');
    expect(search.exitCode).toBe(0);
    expect((search.json.results as { kind: string }[])[0]?.kind).toBe("decision");
    expect((await keel("show", "nope")).exitCode).toBe(5);
    const invalid = await keel("record", "--title", "T", "--target", "db", "--rationale", "short");
    expect(invalid.exitCode).toBe(1);
    expect(invalid.json).toMatchObject({ error: { code: "MEMORY_INVALID" } });
    const history = await keel("history", id);
    expect((history.json.history as { status: string }[]).map((h) => h.status)).toEqual([
      "active",
      "superseded",
    ]);
    expect((await keel("stats")).json).toMatchObject({ stats: { records: 2 } });
  });
});
