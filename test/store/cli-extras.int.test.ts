/**
 * The seed-004 CLI contract's verbs beyond migrate/backup/restore/reset: `keel db dump`,
 * `keel db shell`, `keel config show <key> --source`; and the plugin `specCompat` check
 * (status `incompatible-spec`). Both dialects where the verb touches the database.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { discoverPlugins, SPEC_VERSION } from "../../src/store/index.js";
import { postgresAvailable } from "../support/postgres.js";
import { createMigratedDatabase } from "../support/templates.js";
import { keelInProcess } from "./cli-in-process.js";
import { tempDir } from "./harness.js";

const root = new URL("../../", import.meta.url).pathname;
// tsx by file URL: some calls start the CLI in a project folder outside the repository.
const tsx = pathToFileURL(join(root, "node_modules/tsx/dist/loader.mjs")).href;
const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const drop of drops) await drop();
});

function keel(
  args: string[],
  options: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv } = {},
) {
  const result = spawnSync(
    process.execPath,
    ["--import", tsx, join(root, "src/cli/run.ts"), ...args],
    {
      cwd: options.cwd ?? root,
      input: options.input,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1", KEEL_DATABASE_URL: "", ...options.env },
    },
  );
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("keel db dump / shell", { timeout: 120_000 }, () => {
  // In-process: the SQLite dump is written by Keel itself to stdout (no process start per call).
  it("dumps a SQLite database as SQL that rebuilds it; --tables limits it; an unknown table is exit 5", async () => {
    const dir = tempDir("dump");
    const db = join(dir, "keel.db");
    expect(
      (await keelInProcess(["config", "set", "theme", 'it\'s "dark"', "--db", db])).exitCode,
    ).toBe(0);
    const dump = await keelInProcess(["db", "dump", "--db", db]);
    expect(dump.exitCode).toBe(0);
    expect(dump.stdout).toMatch(/^PRAGMA foreign_keys=OFF;\nBEGIN TRANSACTION;\n/);
    expect(dump.stdout.trimEnd().endsWith("COMMIT;")).toBe(true);
    const rebuilt = new Database(":memory:");
    rebuilt.exec(dump.stdout);
    expect(
      rebuilt
        .prepare("SELECT value_json FROM config_preferences WHERE key = 'theme'")
        .pluck()
        .get(),
    ).toBe(JSON.stringify('it\'s "dark"'));
    const original = new Database(db, { readonly: true });
    const names = (d: Database.Database) =>
      d
        .prepare(
          "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .all();
    expect(names(rebuilt)).toEqual(names(original));
    original.close();

    const some = await keelInProcess(["db", "dump", "--db", db, "--tables", "config_preferences"]);
    expect(some.stdout.match(/^CREATE TABLE/gm)).toHaveLength(1);
    const missing = await keelInProcess(["db", "dump", "--db", db, "--tables", "nope", "--json"]);
    expect(missing.exitCode).toBe(5);
    expect(JSON.parse(missing.stdout).error.code).toBe("NOT_FOUND");
  });

  it("opens sqlite3 on the database (statements from stdin)", async () => {
    const db = join(tempDir("shell"), "keel.db");
    expect((await keelInProcess(["config", "set", "theme", "dark", "--db", db])).exitCode).toBe(0);
    const shell = keel(["db", "shell", "--db", db], {
      input: "SELECT key FROM config_preferences;\n",
    });
    expect(shell.code).toBe(0);
    expect(shell.stdout.trim()).toBe("theme");
  });

  it("dumps and opens psql on Postgres", async () => {
    if (!(await postgresAvailable())) return;
    const database = await createMigratedDatabase("cli_extras_dump");
    drops.push(database.drop);
    const set = await keelInProcess(["config", "set", "theme", "dark", "--db", database.url]);
    expect(set.exitCode).toBe(0);
    const dump = keel(["db", "dump", "--db", database.url, "--tables", "config_preferences"]);
    expect(dump.code).toBe(0);
    expect(dump.stdout).toContain("CREATE TABLE public.config_preferences");
    expect(dump.stdout).toContain("theme");
    const shell = keel(["db", "shell", "--db", database.url], {
      input: "\\pset tuples_only on\nSELECT key FROM config_preferences;\n",
    });
    expect(shell.code).toBe(0);
    expect(shell.stdout).toContain("theme");
  });
});

describe("keel config show --source", { timeout: 120_000 }, () => {
  // In-process (the same program, no process start per call): this case is about the verb.
  it("says where a value comes from: default, project, global, env, flag", async () => {
    const project = tempDir("show");
    const home = tempDir("show-home");
    const run = (args: string[], env: Record<string, string> = {}) =>
      keelInProcess(args, { cwd: project, env: { HOME: home, ...env } });
    const show = async (key: string, extra: string[] = [], env: Record<string, string> = {}) =>
      JSON.parse((await run(["config", "show", key, "--source", "--json", ...extra], env)).stdout);
    expect(await show("auto_migrate")).toMatchObject({ value: true, source: "default" });
    await run(["config", "set", "auto_migrate", "false"]);
    expect(await show("auto_migrate")).toMatchObject({
      value: false,
      source: "project",
      from: "config_preferences",
    });
    await run(["config", "set", "theme", "light", "-g"]);
    expect(await show("theme", ["-g"])).toMatchObject({ value: "light", source: "global" });
    mkdirSync(join(project, ".keel"), { recursive: true });
    writeFileSync(join(project, ".keel", "config.json"), JSON.stringify({ auto_migrate: true }));
    expect(await show("auto_migrate")).toMatchObject({
      value: true,
      source: "project",
      from: join(project, ".keel", "config.json"),
    });
    expect(await show("database")).toMatchObject({
      source: "default",
      value: join(project, ".keel", "keel.db"),
    });
    const other = join(project, "other.db");
    expect(await show("database", ["--db", other])).toMatchObject({ source: "flag", value: other });
    expect(await show("database", [], { KEEL_DATABASE_URL: other })).toMatchObject({
      source: "env",
      from: "KEEL_DATABASE_URL",
    });
    const unknown = await run(["config", "show", "nope", "--json"]);
    expect(unknown.exitCode).toBe(5);
  });
});

describe("plugin specCompat", () => {
  it("a plugin whose specCompat does not admit this spec version is incompatible-spec", () => {
    const dir = tempDir("spec-compat");
    const write = (id: string, specCompat?: string) => {
      mkdirSync(join(dir, id));
      writeFileSync(
        join(dir, id, "plugin.json"),
        JSON.stringify({ id, version: "1.0.0", ...(specCompat ? { specCompat } : {}) }),
      );
    };
    write("fits", `^${SPEC_VERSION}`);
    write("future", "^9.0.0");
    write("any");
    write("broken", "not a range");
    const found = discoverPlugins(dir);
    expect(found.map((p) => [p.id, p.status])).toEqual([
      ["any", "enabled"],
      ["broken", "invalid-manifest"],
      ["fits", "enabled"],
      ["future", "incompatible-spec"],
    ]);
    expect(found[3]?.statusReason).toContain(
      `does not include spec ${SPEC_VERSION}, which Keel implements`,
    );
  });
});
