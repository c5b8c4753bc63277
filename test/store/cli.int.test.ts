import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase, postgresAvailable } from "../support/postgres.js";
import { keelInProcess } from "./cli-in-process.js";
import { sqliteHarness, tempDir } from "./harness.js";

const RUN = fileURLToPath(new URL("../../src/cli/run.ts", import.meta.url));
// Resolved here: the children run in temporary folders where a bare "tsx" would not resolve.
const TSX = import.meta.resolve("tsx");
const harness = sqliteHarness();
afterAll(() => harness.cleanup());

interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
  json: Record<string, unknown>;
}

/** Runs the real CLI in a child process, in `cwd`, with a clean Keel environment. */
function keelChild(args: string[], cwd: string, env: Record<string, string> = {}): Result {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.startsWith("KEEL_")),
  ) as Record<string, string>;
  const result = spawnSync(process.execPath, ["--import", TSX, RUN, ...args], {
    cwd,
    encoding: "utf8",
    env: { ...clean, HOME: cwd, NO_COLOR: "1", ...env },
  });
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(result.stdout.trim().split("\n").pop() ?? "{}");
  } catch {
    // human output
  }
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, json };
}

/**
 * Runs the same program in this process (`keelInProcess`), in `cwd` with HOME there too: the
 * verbs' behaviour without a process start per call (CI time); `keelChild` keeps a few runs
 * that check the real process's exit codes.
 */
async function keel(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<Result> {
  const run = await keelInProcess(args, { cwd, env: { HOME: cwd, ...env } });
  return { status: run.exitCode, stdout: run.stdout, stderr: run.stderr, json: run.json };
}

describe("keel db, config and doctor", { timeout: 300_000 }, () => {
  it("the real process: exit 2 and a JSON error for a file that is not a database, 2 for doctor with none", () => {
    const cwd = tempDir("cli-process");
    const notes = join(cwd, "notes.db");
    writeFileSync(notes, "plain text, not SQLite\n".repeat(100));
    const bad = keelChild(["db", "migrate", "--db", notes, "--json"], cwd);
    expect(bad.status, bad.stderr).toBe(2);
    expect(bad.json).toMatchObject({ ok: false, error: { code: "STORE_NOT_A_DATABASE" } });
    const doctor = keelChild(["doctor"], cwd);
    expect(doctor.status).toBe(2);
    expect(doctor.stdout).toMatch(/database\s+error/);
    expect(existsSync(join(cwd, ".keel"))).toBe(false);
  });

  it("migrates, reports status, and dry-runs without changing anything", async () => {
    const cwd = tempDir("cli-migrate");
    const dry = await keel(["db", "migrate", "--dry-run", "--json"], cwd);
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.json).toMatchObject({ ok: true, dryRun: true, kernel: { from: 0 } });
    const status0 = await keel(["db", "migrate", "--status", "--json"], cwd);
    expect((status0.json.kernel as { current: number }).current).toBe(0);
    // Neither created anything: no .keel folder, no database, no lock file.
    expect(existsSync(join(cwd, ".keel"))).toBe(false);
    const applied = await keel(["db", "migrate", "--to", "1", "--json"], cwd);
    expect(applied.json).toMatchObject({
      ok: true,
      kernel: { from: 0, to: 1, applied: [{ version: 1, name: "001_kernel" }] },
    });
    const rest = await keel(["db", "migrate"], cwd);
    expect(rest.status).toBe(0);
    expect(rest.stdout).toMatch(/kernel: v1 → v\d+, applied 002_/);
    expect(rest.stdout).toMatch(/backup: .*keel-pre-migrate-v1\.db/);
    expect(existsSync(join(cwd, ".keel", "backups", "keel-pre-migrate-v1.db"))).toBe(true);
    const status = await keel(["db", "migrate", "--status"], cwd);
    expect(status.stdout).toMatch(/kernel\s+001\s+kernel\s+applied/);
    const bad = await keel(["db", "migrate", "--to", "zero", "--json"], cwd);
    expect(bad.status).toBe(2);
    expect(bad.json).toMatchObject({ ok: false, error: { code: "INVALID_ARGUMENT" } });
  });

  it("config set/get/list with exit 5 for an unknown key, per scope", async () => {
    const cwd = tempDir("cli-config");
    expect((await keel(["config", "set", "jobs.minimum_ttl_seconds", "90"], cwd)).status).toBe(0);
    const got = await keel(["config", "get", "jobs.minimum_ttl_seconds", "--json"], cwd);
    expect(got.json).toMatchObject({ ok: true, value: 90, source: "set" });
    const missing = await keel(["config", "get", "no.such.key", "--json"], cwd);
    expect(missing.status).toBe(5);
    expect(missing.json).toMatchObject({ ok: false, error: { code: "NOT_FOUND" } });
    const invalid = await keel(["config", "set", "auto_migrate", "maybe"], cwd);
    expect(invalid.status).toBe(2);
    expect(invalid.stderr).toMatch(/auto_migrate must be true or false/);
    const list = await keel(["config", "list"], cwd);
    expect(list.stdout).toMatch(/auto_migrate\s+true\s+default/);
    expect(list.stdout).toMatch(/jobs\.minimum_ttl_seconds\s+90\s+set/);
    // -g is another database (~/.keel/keel.db): the project's preference is not there.
    const home = tempDir("cli-config-home");
    expect(
      (await keel(["config", "get", "jobs.minimum_ttl_seconds", "-g"], cwd, { HOME: home })).status,
    ).toBe(5);
    expect(existsSync(join(home, ".keel", "keel.db"))).toBe(true);
  });

  it("backs up, refuses to restore without confirmation, restores with --force, resets", async () => {
    const cwd = tempDir("cli-backup");
    await keel(["config", "set", "theme", "dark"], cwd);
    const backup = await keel(["db", "backup", "--out", join(cwd, "b.db"), "--json"], cwd);
    expect(backup.status, backup.stderr).toBe(0);
    expect(backup.json).toMatchObject({ ok: true, path: join(cwd, "b.db") });
    await keel(["config", "set", "theme", "light"], cwd);
    const refused = await keel(["db", "restore", join(cwd, "b.db")], cwd);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/CONFIRMATION_REQUIRED.*--force/s);
    expect((await keel(["config", "get", "theme", "--json"], cwd)).json).toMatchObject({
      value: "light",
    });
    const restored = await keel(["db", "restore", join(cwd, "b.db"), "--force", "--json"], cwd);
    expect(restored.status, restored.stderr).toBe(0);
    expect((await keel(["config", "get", "theme", "--json"], cwd)).json).toMatchObject({
      value: "dark",
    });
    expect((await keel(["db", "reset"], cwd)).status).toBe(2);
    const reset = await keel(["db", "reset", "--force", "--json"], cwd);
    expect(reset.status).toBe(0);
    expect((await keel(["config", "get", "theme", "--json"], cwd)).json).toMatchObject({
      value: "dark",
    });
  });

  it("doctor: 2 with no database (and creates none), 0 when healthy, 1 with an orphan job file", async () => {
    const cwd = tempDir("cli-doctor");
    const none = await keel(["doctor", "--json"], cwd);
    expect(none.status).toBe(2);
    expect(none.json).toMatchObject({ ok: false, exitCode: 2 });
    expect(existsSync(join(cwd, ".keel", "keel.db"))).toBe(false);
    await keel(["db", "migrate"], cwd);
    const healthy = await keel(["doctor"], cwd);
    expect(healthy.status, healthy.stdout).toBe(0);
    expect(healthy.stdout).toMatch(/integrity\s+ok/);
    mkdirSync(join(cwd, ".keel", "jobs"), { recursive: true });
    writeFileSync(join(cwd, ".keel", "jobs", "ghost.md"), "# nobody's job\n");
    const warned = await keel(["doctor", "--json"], cwd);
    expect(warned.status).toBe(1);
    const checks = warned.json.checks as { id: string; status: string; remedy: string | null }[];
    expect(checks.find((c) => c.id === "orphan-job-files")).toMatchObject({
      status: "warn",
      remedy: expect.stringMatching(/rm '.*ghost\.md'/),
    });
  });

  it("bad database files: exit 2 with a clear message, file untouched, for every verb", async () => {
    const cwd = tempDir("cli-bad");
    const notes = join(cwd, "notes.db");
    writeFileSync(notes, "plain text, not SQLite\n".repeat(100));
    const before = readFileSync(notes);
    for (const args of [["db", "migrate"], ["config", "list"], ["db", "backup"], ["doctor"]]) {
      const result = await keel([...args, "--db", notes, "--json"], cwd);
      expect(result.status, args.join(" ")).toBe(2);
      expect(JSON.stringify(result.json)).toMatch(/not a SQLite database/);
    }
    expect(readFileSync(notes).equals(before)).toBe(true);
  });

  it("chooses the database: --db beats KEEL_DATABASE_URL beats .keel/config.json beats the scope", async () => {
    const cwd = tempDir("cli-scope");
    mkdirSync(join(cwd, ".keel"), { recursive: true });
    writeFileSync(
      join(cwd, ".keel", "config.json"),
      JSON.stringify({ database: "from-config.db" }),
    );
    await keel(["config", "set", "where", "config-file"], cwd);
    await keel(["config", "set", "where", "env"], cwd, {
      KEEL_DATABASE_URL: join(cwd, "from-env.db"),
    });
    await keel(["config", "set", "where", "flag", "--db", join(cwd, "from-flag.db")], cwd, {
      KEEL_DATABASE_URL: join(cwd, "from-env.db"),
    });
    expect(existsSync(join(cwd, "from-config.db"))).toBe(true);
    expect(existsSync(join(cwd, "from-env.db"))).toBe(true);
    expect(existsSync(join(cwd, "from-flag.db"))).toBe(true);
    expect(existsSync(join(cwd, ".keel", "keel.db"))).toBe(false);
    expect((await keel(["config", "get", "where", "--json"], cwd)).json).toMatchObject({
      value: "config-file",
    });
    expect(
      (
        await keel(["config", "get", "where", "--json"], cwd, {
          KEEL_DATABASE_URL: join(cwd, "from-env.db"),
        })
      ).json,
    ).toMatchObject({ value: "env" });
    const home = tempDir("cli-home");
    const globalSet = await keel(["config", "set", "where", "global"], cwd, {
      KEEL_SCOPE: "global",
      HOME: home,
    });
    expect(globalSet.status).toBe(0);
    expect(existsSync(join(home, ".keel", "keel.db"))).toBe(true);
    writeFileSync(join(cwd, ".keel", "config.json"), "{ not json");
    const broken = await keel(["config", "list", "--json"], cwd);
    expect(broken.status).toBe(2);
    expect(broken.json).toMatchObject({ error: { code: "CONFIG_INVALID" } });
  });

  it("migrates plugins after the kernel, one plugin at a time, or not at all", async () => {
    const cwd = tempDir("cli-plugins");
    const plugin = join(cwd, ".keel", "plugins", "acme");
    mkdirSync(join(plugin, "migrations"), { recursive: true });
    writeFileSync(
      join(plugin, "plugin.json"),
      JSON.stringify({
        id: "acme-notes",
        version: "1.0.0",
        storage: { mode: "dedicated", tables: ["notes"], migrations: ["migrations/001_init.sql"] },
      }),
    );
    writeFileSync(
      join(plugin, "migrations", "001_init.sql"),
      "CREATE TABLE notes (id TEXT PRIMARY KEY);",
    );
    const kernelOnly = await keel(["db", "migrate", "--kernel-only", "--json"], cwd, {
      KEEL_SCOPE: "project",
    });
    expect(kernelOnly.status, kernelOnly.stderr).toBe(0);
    expect(kernelOnly.json).toMatchObject({ plugins: [] });
    const status = await keel(["db", "migrate", "--status"], cwd);
    expect(status.stdout).toMatch(/acme-notes\s+001\s+001_init\s+pending/);
    const missing = await keel(["db", "migrate", "--plugin", "nope", "--json"], cwd);
    expect(missing.status).toBe(5);
    const one = await keel(["db", "migrate", "--plugin", "acme-notes", "--json"], cwd);
    expect(one.status, one.stderr).toBe(0);
    expect(one.json).toMatchObject({
      plugins: [{ pluginId: "acme-notes", status: "enabled", applied: [{ version: 1 }] }],
    });
  });

  it("works against Postgres through --db", async () => {
    if (!(await postgresAvailable())) return;
    const database = await createTestDatabase("store_cli");
    try {
      const cwd = tempDir("cli-pg");
      const migrated = await keel(["db", "migrate", "--db", database.url, "--json"], cwd);
      expect(migrated.status, migrated.stderr).toBe(0);
      expect(
        (await keel(["config", "set", "theme", "dark", "--db", database.url], cwd)).status,
      ).toBe(0);
      const doctor = await keel(["doctor", "--db", database.url, "--json"], cwd);
      expect(doctor.status, JSON.stringify(doctor.json)).toBe(0);
      const backup = await keel(
        ["db", "backup", "--db", database.url, "--out", join(cwd, "pg.db"), "--json"],
        cwd,
      );
      expect(backup.status, backup.stderr).toBe(0);
      const restore = await keel(
        ["db", "restore", join(cwd, "pg.db"), "--db", database.url, "--force"],
        cwd,
      );
      expect(restore.status, restore.stderr).toBe(0);
      expect(
        (await keel(["config", "get", "theme", "--db", database.url, "--json"], cwd)).json,
      ).toMatchObject({ value: "dark" });
    } finally {
      await database.drop();
    }
  });
});
