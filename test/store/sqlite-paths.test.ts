/**
 * SQLite paths of the store and of `keel db migrate` / `keel doctor` that the conformance suite
 * does not reach: settings read back after open, migration folders with bad names or gaps, the
 * `--no-backup` and `--to` flags, a user_version that disagrees with the ledger, bad database
 * files through the CLI, and the file-level doctor checks with their remedies carried out. The
 * CLI runs in-process (`keelInProcess`): what is tested is the program, not process start-up.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { runDoctor } from "../../src/store/doctor/doctor.js";
import {
  backupStore,
  kernelMigrationsDir,
  loadMigrationFiles,
  openStore,
  resolveStoreLocation,
} from "../../src/store/index.js";
import { backendOf } from "../../src/store/open-store.js";
import { keelCommandsIn, keelInProcess, unknownKeelCommandParts } from "./cli-in-process.js";
import { tempDir } from "./harness.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function dirFor(label: string): string {
  const dir = tempDir(label);
  dirs.push(dir);
  return dir;
}
const latest = loadMigrationFiles(kernelMigrationsDir("sqlite")).length;

/** A migrated Keel database with a preference in it, closed. */
async function keelDatabase(label: string): Promise<{ dir: string; path: string }> {
  const dir = dirFor(label);
  const path = join(dir, ".keel", "keel.db");
  const store = await openStore({ db: path });
  await store.kysely
    .insertInto("config_preferences")
    .values({ key: "k", value_json: '"v"', updated_at: 1 })
    .execute();
  await store.close();
  return { dir, path };
}

/** Every file under `dir` with its bytes, for "nothing changed" checks. */
function listing(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else out[full.slice(dir.length)] = readFileSync(full).toString("base64");
    }
  };
  walk(dir);
  return out;
}

describe("SQLite settings, read back after open", () => {
  it("WAL, checkpoint interval, foreign keys, busy timeout and synchronous are what docs/store.md says", async () => {
    const { path } = await keelDatabase("pragmas");
    const store = await openStore({ db: path });
    const native = store.native.dialect === "sqlite" ? store.native.database : undefined;
    const read = (name: string) => native?.pragma(name, { simple: true });
    expect(read("journal_mode")).toBe("wal");
    expect(read("wal_autocheckpoint")).toBe(10_000);
    expect(read("foreign_keys")).toBe(1);
    expect(read("busy_timeout")).toBe(5000);
    expect(read("synchronous")).toBe(1); // NORMAL
    await store.close();
    const full = await openStore({ db: path, synchronous: "FULL", busyTimeoutMs: 250 });
    const database = full.native.dialect === "sqlite" ? full.native.database : undefined;
    expect(database?.pragma("synchronous", { simple: true })).toBe(2);
    // FULL fsyncs every commit: a log reused in place (SQLite's 1,000) beats a growing one.
    expect(database?.pragma("wal_autocheckpoint", { simple: true })).toBe(1_000);
    expect(database?.pragma("busy_timeout", { simple: true })).toBe(250);
    await full.close();
    // The file stays in WAL mode for every later connection.
    const raw = new Database(path, { readonly: true });
    expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
    raw.close();
  });
});

describe("kernel migration folders", () => {
  const folderWith = (label: string, names: string[]) => {
    const dir = dirFor(label);
    for (const name of names) writeFileSync(join(dir, name), "CREATE TABLE state_xs (id TEXT);\n");
    return dir;
  };

  it("refuses a bad file name or a gap before creating anything, naming the file", async () => {
    const cases: [string[], RegExp][] = [
      [["001_kernel.sql", "2_short.sql"], /"2_short\.sql" is not NNN_snake_case\.sql/],
      [["001_kernel.sql", "002_CamelCase.sql"], /"002_CamelCase\.sql" is not NNN_snake_case/],
      [["001_kernel.sql", "002-dashes.sql"], /"002-dashes\.sql" is not NNN_snake_case/],
      [["001_kernel.sql", "002_a__b.sql"], /"002_a__b\.sql" is not NNN_snake_case/],
      [
        ["001_kernel.sql", "003_gap.sql"],
        /without gaps or duplicates; found 003_gap at position 2/,
      ],
      [["002_first.sql"], /found 002_first at position 1/],
      [
        ["001_kernel.sql", "002_one.sql", "002_two.sql"],
        /without gaps or duplicates; found 002_two at position 3/,
      ],
    ];
    for (const [index, [names, message]] of cases.entries()) {
      const migrations = folderWith(`bad-migrations-${index}`, names);
      const home = dirFor("bad-migrations-db");
      const db = join(home, "sub", "keel.db");
      const error = await openStore({ db, migrationsDir: migrations }).catch((e: unknown) => e);
      expect(error, names.join(" ")).toMatchObject({ code: "MIGRATION_FAILED", exitCode: 2 });
      expect(String((error as Error).message)).toMatch(message);
      expect(readdirSync(home), "nothing created").toEqual([]);
    }
  });

  it("ignores files that are not .sql (a README beside the migrations)", () => {
    const migrations = folderWith("readme", ["001_kernel.sql", "002_more.sql"]);
    writeFileSync(join(migrations, "README.md"), "# notes\n");
    writeFileSync(join(migrations, "003_draft.sql.bak"), "");
    expect(loadMigrationFiles(migrations).map((f) => [f.version, f.name, f.description])).toEqual([
      [1, "001_kernel", "kernel"],
      [2, "002_more", "more"],
    ]);
  });
});

describe("keel db migrate flags (in-process)", () => {
  const ledgerOf = async (db: string) => {
    const store = await openStore({ db, autoMigrate: false });
    const rows = await store.kysely
      .selectFrom("config_schema_versions")
      .select("version")
      .where("scope", "=", "kernel")
      .execute();
    const userVersion = await backendOf(store).readUserVersion(store.kysely);
    await store.close();
    return { versions: rows.map((r) => Number(r.version)), userVersion };
  };

  it("--no-backup migrates without writing the pre-migrate backup", async () => {
    const dir = dirFor("no-backup");
    const db = join(dir, ".keel", "keel.db");
    expect((await keelInProcess(["db", "migrate", "--to", "1", "--db", db])).exitCode).toBe(0);
    const run = await keelInProcess(["db", "migrate", "--no-backup", "--json", "--db", db]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.json).toMatchObject({
      ok: true,
      kernel: { from: 1, to: latest, backupPath: null },
    });
    expect(existsSync(join(dir, ".keel", "backups"))).toBe(false);
    expect((await ledgerOf(db)).userVersion).toBe(latest);
  });

  it("--to below the database's version or past the newest migration is refused, nothing changed", async () => {
    const { dir, path } = await keelDatabase("to-bounds");
    const before = listing(dir);
    const down = await keelInProcess(["db", "migrate", "--to", "1", "--json", "--db", path]);
    expect(down.exitCode).toBe(2);
    expect(down.json).toMatchObject({
      ok: false,
      error: {
        code: "INVALID_ARGUMENT",
        message: expect.stringContaining(
          `Cannot migrate down to version 1: ${path} is at ${latest} and migrations are up-only.`,
        ),
      },
    });
    expect(JSON.stringify(down.json)).toMatch(/keel db restore/);
    const past = await keelInProcess(["db", "migrate", "--to", String(latest + 1), "--db", path]);
    expect(past.exitCode).toBe(2);
    expect(past.stderr).toMatch(
      new RegExp(`INVALID_ARGUMENT.*There is no migration ${latest + 1}; the newest is ${latest}`),
    );
    expect(listing(dir)).toEqual(before);
    // --to the version it is at: nothing to do, exit 0.
    const same = await keelInProcess(["db", "migrate", "--to", String(latest), "--db", path]);
    expect(same.exitCode, same.stderr).toBe(0);
    expect(same.stdout).toMatch(new RegExp(`kernel: up to date at v${latest}`));
    expect(await ledgerOf(path)).toEqual({
      versions: Array.from({ length: latest }, (_, i) => i + 1),
      userVersion: latest,
    });
  });

  it("a user_version behind the ledger: --status warns, nothing is re-applied, migrate re-aligns it", async () => {
    const { path } = await keelDatabase("user-version");
    const raw = new Database(path);
    raw.pragma("user_version = 3");
    raw.close();
    const status = await keelInProcess(["db", "migrate", "--status", "--db", path]);
    expect(status.exitCode).toBe(0);
    expect(status.stdout).toMatch(
      new RegExp(`user_version is 3 but the ledger says ${latest}: run \`keel db migrate\``),
    );
    const migrated = await keelInProcess(["db", "migrate", "--json", "--db", path]);
    expect(migrated.json).toMatchObject({ ok: true, kernel: { applied: [], backupPath: null } });
    expect(await ledgerOf(path)).toEqual({
      versions: Array.from({ length: latest }, (_, i) => i + 1),
      userVersion: latest,
    });
  });

  it("a user_version ahead of this Keel is a database from a newer Keel: exit 2, untouched", async () => {
    const { dir, path } = await keelDatabase("user-version-ahead");
    const raw = new Database(path);
    raw.pragma(`user_version = ${latest + 5}`);
    raw.close();
    const before = listing(dir);
    const run = await keelInProcess(["db", "migrate", "--db", path]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/STORE_TOO_NEW.*newer than this Keel knows/);
    expect(listing(dir)).toEqual(before);
  });
});

describe("keel db reset warns before it empties plugin data", () => {
  it("without --force it refuses, naming the plugin data it would empty; nothing is deleted", async () => {
    const { path } = await keelDatabase("reset-warning");
    const store = await openStore({ db: path });
    await store.kysely
      .insertInto("state_plugin_kv")
      .values({ plugin_id: "pins", node_id: "", key: "k", value_json: "1", updated_at: 1 })
      .execute();
    await store.close();
    const refused = await keelInProcess(["db", "reset", "--db", path]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(/CONFIRMATION_REQUIRED.*plugin data.*--force/s);
    const kept = await openStore({ db: path });
    expect(await kept.kysely.selectFrom("state_plugin_kv").select("key").execute()).toEqual([
      { key: "k" },
    ]);
    await kept.close();
  });
});

describe("bad database files through the CLI (in-process): exit 2, a clear message, nothing written", () => {
  const verbs = [
    ["db", "migrate"],
    ["db", "migrate", "--status"],
    ["config", "list"],
    ["db", "backup"],
    ["db", "reset", "--force"],
    ["doctor"],
  ];
  const expectRefused = async (dir: string, path: string, code: string, message: RegExp) => {
    const before = listing(dir);
    for (const verb of verbs) {
      const run = await keelInProcess([...verb, "--json", "--db", path]);
      expect(run.exitCode, verb.join(" ")).toBe(2);
      const text = JSON.stringify(run.json);
      expect(text, verb.join(" ")).toMatch(message);
      if (verb[0] !== "doctor") expect(run.json, verb.join(" ")).toMatchObject({ error: { code } });
      const after = listing(dir);
      expect(Object.keys(after), `${verb.join(" ")} added or removed a file`).toEqual(
        Object.keys(before),
      );
      for (const name of Object.keys(before)) {
        expect(after[name] === before[name], `${verb.join(" ")} changed ${name}`).toBe(true);
      }
    }
  };

  it("a truncated database", async () => {
    const { dir, path } = await keelDatabase("cli-truncated");
    truncateSync(path, Math.floor(readFileSync(path).length / 2));
    await expectRefused(dir, path, "STORE_CORRUPT", /truncated/);
  });

  it("a database whose schema page is corrupt", async () => {
    const { dir, path } = await keelDatabase("cli-corrupt");
    const bytes = readFileSync(path);
    for (let i = 100; i < 4096; i++) bytes[i] = (i * 37) & 0xff;
    writeFileSync(path, bytes);
    await expectRefused(dir, path, "STORE_CORRUPT", /corrupt|malformed/i);
  });

  it("a database from a newer Keel", async () => {
    const { dir, path } = await keelDatabase("cli-too-new");
    const raw = new Database(path);
    raw
      .prepare(
        "INSERT INTO config_schema_versions (scope, owner_id, version, description, applied_at) VALUES ('kernel', 'kernel', 999, 'future', 1)",
      )
      .run();
    raw.pragma("user_version = 999");
    raw.pragma("journal_mode = DELETE"); // no -wal/-shm left for the listing
    raw.close();
    await expectRefused(dir, path, "STORE_TOO_NEW", /999.*newer than this Keel/);
  });
});

describe("keel doctor on SQLite files: the database and integrity checks, remedies carried out", () => {
  /** Runs each `keel …` of a remedy as written on `db`, `<backup>` filled in. */
  const carryOut = async (remedy: string | null | undefined, db: string, backup = "") => {
    const commands = keelCommandsIn(remedy);
    expect(commands.length, String(remedy)).toBeGreaterThan(0);
    for (const command of commands) {
      expect(unknownKeelCommandParts(command)).toEqual([]);
      const args = command.replace("<backup>", backup).split(/\s+/).slice(1);
      const run = await keelInProcess([...args, "--db", db]);
      expect(run.exitCode, `${command}: ${run.stderr}`).toBe(0);
    }
  };
  const check = (report: Awaited<ReturnType<typeof runDoctor>>, id: string) =>
    report.checks.find((c) => c.id === id);

  it("no database: error, none created; `keel db migrate` creates it and doctor is green", async () => {
    const dir = dirFor("doctor-none");
    const path = join(dir, ".keel", "keel.db");
    const location = resolveStoreLocation({ db: path });
    const report = await runDoctor(location);
    expect(report.exitCode).toBe(2);
    expect(check(report, "database")).toMatchObject({
      status: "error",
      message: `There is no database at ${path}.`,
    });
    expect(existsSync(join(dir, ".keel"))).toBe(false);
    await carryOut(check(report, "database")?.remedy, path);
    expect((await runDoctor(location)).exitCode).toBe(0);
  });

  it("a corrupt file: error; restoring a backup as the remedy says makes doctor green", async () => {
    const { dir, path } = await keelDatabase("doctor-corrupt");
    const store = await openStore({ db: path });
    const { path: backup } = await backupStore(store, { out: join(dir, "good.db") });
    await store.close();
    truncateSync(path, 5000);
    const location = resolveStoreLocation({ db: path });
    const report = await runDoctor(location);
    expect(check(report, "database")).toMatchObject({
      status: "error",
      message: expect.stringMatching(/truncated/),
      remedy: expect.stringContaining(join(dir, ".keel", "backups")),
    });
    expect(report.exitCode).toBe(2);
    await carryOut(check(report, "database")?.remedy, path, backup);
    expect((await runDoctor(location)).exitCode).toBe(0);
  });

  it("a file that opens but fails quick_check: integrity error; restoring a backup clears it", async () => {
    const { dir, path } = await keelDatabase("doctor-integrity");
    const store = await openStore({ db: path });
    const { path: backup } = await backupStore(store, { out: join(dir, "good.db") });
    await store.close();
    // Scribble over one table's root page (not one doctor reads otherwise): the schema still
    // reads, quick_check does not.
    const raw = new Database(path);
    const root = raw
      .prepare("SELECT rootpage FROM sqlite_master WHERE name = 'scan_issues'")
      .pluck()
      .get() as number;
    const pageSize = raw.pragma("page_size", { simple: true }) as number;
    raw.pragma("journal_mode = DELETE");
    raw.close();
    const bytes = readFileSync(path);
    bytes.fill(0xa5, (root - 1) * pageSize, root * pageSize);
    writeFileSync(path, bytes);
    const location = resolveStoreLocation({ db: path });
    const report = await runDoctor(location);
    expect(check(report, "database")).toMatchObject({ status: "ok" });
    expect(check(report, "integrity")).toMatchObject({
      status: "error",
      message: expect.stringMatching(/^PRAGMA quick_check: /),
      remedy: expect.stringMatching(/keel db restore <backup> --force/),
    });
    expect(report.exitCode).toBe(2);
    await carryOut(check(report, "integrity")?.remedy, path, backup);
    const after = await runDoctor(location);
    expect(check(after, "integrity")).toMatchObject({ status: "ok" });
    expect(after.exitCode).toBe(0);
  });

  it("a file that is not a database: error, a remedy that names no command, the file untouched", async () => {
    const dir = dirFor("doctor-notadb");
    const path = join(dir, "notes.db");
    writeFileSync(path, "my notes\n".repeat(500));
    const report = await runDoctor(resolveStoreLocation({ db: path }));
    expect(check(report, "database")).toMatchObject({
      status: "error",
      message: expect.stringMatching(/not a SQLite database/),
      remedy: expect.stringMatching(/--db/),
    });
    expect(readFileSync(path, "utf8")).toBe("my notes\n".repeat(500));
  });
});

describe("scopes", () => {
  it("-g is $HOME/.keel/keel.db (HOME respected), created with its folder; the project is untouched", async () => {
    const home = dirFor("scope-home");
    const project = dirFor("scope-project");
    const run = await keelInProcess(["config", "set", "theme", "dark", "-g"], {
      cwd: project,
      env: { HOME: home },
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(existsSync(join(home, ".keel", "keel.db"))).toBe(true);
    expect(readdirSync(project)).toEqual([]);
    const global = await keelInProcess(["config", "get", "theme", "--json"], {
      cwd: project,
      env: { HOME: home, KEEL_SCOPE: "global" },
    });
    expect(global.json).toMatchObject({ ok: true, value: "dark" });
    expect(resolveStoreLocation({ scope: "global", env: {}, home })).toMatchObject({
      path: join(home, ".keel", "keel.db"),
      keelDir: join(home, ".keel"),
    });
  });

  it("--db creates the folders of a new file, and no scope folder in the working directory", async () => {
    const cwd = dirFor("scope-db");
    const elsewhere = dirFor("scope-db-target");
    const db = join(elsewhere, "a", "b", "keel.db");
    const run = await keelInProcess(["db", "migrate", "--db", db], { cwd });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(existsSync(db)).toBe(true);
    expect(readdirSync(cwd)).toEqual([]);
    // Relative --db paths are the working directory's.
    const relative = await keelInProcess(["db", "migrate", "--db", "data/k.db"], { cwd });
    expect(relative.exitCode, relative.stderr).toBe(0);
    expect(existsSync(join(cwd, "data", "k.db"))).toBe(true);
  });

  it("a relative `database` in a scope's config.json is relative to that scope, not the working directory", () => {
    const home = dirFor("scope-config-home");
    const cwd = dirFor("scope-config-cwd");
    mkdirSync(join(home, ".keel"), { recursive: true });
    writeFileSync(join(home, ".keel", "config.json"), JSON.stringify({ database: "data/g.db" }));
    expect(resolveStoreLocation({ scope: "global", env: {}, home, cwd })).toMatchObject({
      dialect: "sqlite",
      path: join(home, "data", "g.db"),
    });
    mkdirSync(join(cwd, ".keel"), { recursive: true });
    writeFileSync(join(cwd, ".keel", "config.json"), JSON.stringify({ database: "data/p.db" }));
    expect(resolveStoreLocation({ env: {}, home, cwd })).toMatchObject({
      path: join(cwd, "data", "p.db"),
      // The scope stays the scope: its plugins, its config file, its backups.
      keelDir: join(cwd, ".keel"),
    });
  });

  it("a database named in .keel/config.json keeps that scope's settings: auto_migrate false is honoured", async () => {
    const cwd = dirFor("scope-config-settings");
    mkdirSync(join(cwd, ".keel"), { recursive: true });
    writeFileSync(
      join(cwd, ".keel", "config.json"),
      JSON.stringify({ database: "data/p.db", auto_migrate: false }),
    );
    const store = await openStore({ cwd });
    try {
      expect(store.openReport.kernel.applied).toEqual([]);
      expect(await backendOf(store).tableExists(store.kysely, "config_schema_versions")).toBe(
        false,
      );
    } finally {
      await store.close();
    }
    expect(existsSync(join(cwd, "data", "p.db"))).toBe(true);
  });
});
