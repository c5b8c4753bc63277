import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { runDoctor } from "../../src/store/doctor/doctor.js";
import {
  backupStore,
  openStore,
  resolveStoreLocation,
  restoreStore,
} from "../../src/store/index.js";
import { tempDir } from "./harness.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) {
    chmodSync(dir, 0o700);
    rmSync(dir, { recursive: true, force: true });
  }
});

function dirFor(label: string): string {
  const dir = tempDir(label);
  dirs.push(dir);
  return dir;
}

/** A real Keel database with a row in it, closed (WAL folded back into the file). */
async function keelDatabase(label: string): Promise<{ dir: string; path: string }> {
  const dir = dirFor(label);
  const path = join(dir, "keel.db");
  const store = await openStore({ db: path });
  await store.kysely
    .insertInto("config_preferences")
    .values({ key: "k", value_json: '"v"', updated_at: 1 })
    .execute();
  await store.close();
  return { dir, path };
}

/** Opening must fail with `code`, exit 2, and leave the folder byte-for-byte as it was. */
async function expectRefusedUnchanged(dir: string, path: string, code: string, message: RegExp) {
  const before = snapshot(dir);
  const error = await openStore({ db: path }).catch((e: unknown) => e);
  expect(error).toMatchObject({ code, exitCode: 2 });
  expect(String((error as Error).message)).toMatch(message);
  expect(snapshot(dir)).toEqual(before);
}

function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    try {
      files[name] = readFileSync(full).toString("base64");
    } catch {
      files[name] = "<dir>";
    }
  }
  return files;
}

describe("SQLite files Keel must refuse", () => {
  it("refuses a file that is not a database", async () => {
    const dir = dirFor("notadb");
    const path = join(dir, "notes.db");
    writeFileSync(path, "these are my notes, not a database\n".repeat(200));
    await expectRefusedUnchanged(dir, path, "STORE_NOT_A_DATABASE", /is not a SQLite database/);
  });

  it("refuses a truncated database", async () => {
    const { dir, path } = await keelDatabase("truncated");
    const size = readFileSync(path).length;
    truncateSync(path, Math.floor(size / 2));
    await expectRefusedUnchanged(dir, path, "STORE_CORRUPT", /is truncated/);
  });

  it("refuses a database whose header is cut short", async () => {
    const { dir, path } = await keelDatabase("shortheader");
    truncateSync(path, 60);
    await expectRefusedUnchanged(dir, path, "STORE_CORRUPT", /truncated/);
  });

  it("refuses a database whose schema page is corrupt", async () => {
    const { dir, path } = await keelDatabase("corrupt");
    const bytes = readFileSync(path);
    // Scribble over the first page after the header: the schema table's b-tree page.
    for (let i = 100; i < 4096; i++) bytes[i] = (i * 37) & 0xff;
    writeFileSync(path, bytes);
    await expectRefusedUnchanged(dir, path, "STORE_CORRUPT", /corrupt|malformed/i);
  });

  it("refuses a SQLite database that is not a Keel database", async () => {
    const dir = dirFor("foreign");
    const path = join(dir, "other.db");
    const other = new Database(path);
    other.exec(
      "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers (name) VALUES ('Ada');",
    );
    other.close();
    await expectRefusedUnchanged(dir, path, "STORE_NOT_A_DATABASE", /not a Keel one.*customers/);
  });

  it("restores a backup over a corrupt database, keeping the corrupt file aside", async () => {
    const { dir, path } = await keelDatabase("restore-over-corrupt");
    const store = await openStore({ db: path });
    const { path: backup } = await backupStore(store, { out: join(dir, "good.db") });
    await store.close();
    truncateSync(path, 1000);
    await expect(openStore({ db: path })).rejects.toMatchObject({ code: "STORE_CORRUPT" });
    const result = await restoreStore(resolveStoreLocation({ db: path }), backup);
    expect(readFileSync(result.previousMovedTo ?? "").length).toBe(1000);
    const restored = await openStore({ db: path });
    const rows = await restored.kysely.selectFrom("config_preferences").select("key").execute();
    expect(rows).toEqual([{ key: "k" }]);
    await restored.close();
  });

  it("doctor changes nothing: a rollback-journal file stays so, a WAL file keeps no -wal/-shm", async () => {
    const { dir, path } = await keelDatabase("doctor-readonly");
    // A copy made by VACUUM INTO (a backup) is in rollback-journal mode, not WAL.
    const store = await openStore({ db: path });
    const copy = join(dir, "copy.db");
    await backupStore(store, { out: copy });
    await store.close();
    const journal = (file: string) => {
      const db = new Database(file, { readonly: true });
      try {
        return db.pragma("journal_mode", { simple: true });
      } finally {
        db.close();
      }
    };
    expect(journal(copy)).toBe("delete");
    const before = snapshot(dir);
    for (const file of [copy, path]) {
      const report = await runDoctor(resolveStoreLocation({ db: file }));
      expect(report.checks.find((c) => c.id === "integrity")).toMatchObject({ status: "ok" });
    }
    expect(snapshot(dir)).toEqual(before);
    expect(journal(copy)).toBe("delete");
  });

  const root = process.getuid?.() === 0;
  const child = fileURLToPath(new URL("./fixtures/open-only.ts", import.meta.url));

  /** Runs the open in a child process; as root, drops to `nobody` so permissions bite. */
  function openAsUnprivileged(db: string) {
    const result = spawnSync(process.execPath, ["--import", "tsx", child, db], {
      encoding: "utf8",
      ...(root ? { uid: 65534, gid: 65534 } : {}),
      env: { ...process.env, HOME: "/tmp" },
    });
    return { status: result.status, output: result.stdout.trim(), stderr: result.stderr };
  }

  it("refuses an existing database in a read-only directory, exit 2, nothing changed", async () => {
    const { dir, path } = await keelDatabase("readonly");
    if (root) chownSync(path, 65534, 65534);
    chmodSync(dir, 0o555);
    const before = snapshot(dir);
    const result = openAsUnprivileged(path);
    expect(result.status, result.stderr).toBe(2);
    expect(JSON.parse(result.output)).toMatchObject({
      ok: false,
      error: { code: "STORE_READ_ONLY" },
    });
    expect(snapshot(dir)).toEqual(before);
  });

  it("the CLI on a database in a read-only directory: exit 2, STORE_READ_ONLY, nothing changed", async () => {
    const { dir, path } = await keelDatabase("readonly-cli");
    if (root) chownSync(path, 65534, 65534);
    chmodSync(dir, 0o555);
    const before = snapshot(dir);
    const run = fileURLToPath(new URL("../../src/cli/run.ts", import.meta.url));
    const result = spawnSync(
      process.execPath,
      ["--import", import.meta.resolve("tsx"), run, "config", "set", "theme", "dark", "--db", path],
      {
        encoding: "utf8",
        ...(root ? { uid: 65534, gid: 65534 } : {}),
        env: { ...process.env, HOME: "/tmp", NO_COLOR: "1" },
      },
    );
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/error \[STORE_READ_ONLY\] .*keel\.db/);
    expect(snapshot(dir)).toEqual(before);
  });

  it("refuses to create a database in a read-only directory, exit 2", async () => {
    const dir = dirFor("readonly-new");
    const sub = join(dir, "locked");
    mkdirSync(sub);
    chmodSync(dir, 0o755);
    chmodSync(sub, 0o555);
    const result = openAsUnprivileged(join(sub, "keel.db"));
    expect(result.status, result.stderr).toBe(2);
    expect(JSON.parse(result.output)).toMatchObject({
      ok: false,
      error: { code: "STORE_READ_ONLY", message: expect.stringMatching(/Cannot write/) },
    });
    expect(existsSync(join(sub, "keel.db"))).toBe(false);
  });
});
