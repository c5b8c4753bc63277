import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { humanTime, relative } from "../../src/cli/when.js";
import { findProjectDir, resolveStoreLocation } from "../../src/store/index.js";
import { keelInProcess } from "../store/cli-in-process.js";

// A newcomer's first hour: the project found from a subfolder, quiet pipes, no CLIPS prompt,
// internal channels hidden, times for people.
const root = new URL("../../", import.meta.url).pathname;
const refund = join(root, "examples/refund-approval.json");
const input =
  '{"customer_id":"c1","amount":120.5,"fraud_score":0.1,"mail_failed":0,"approved":false}';

function scratchDir(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), "keel-first-hour-")));
}

describe("the project is found by walking up, as git finds .git", () => {
  it("a command run in a subfolder uses the project's database", async () => {
    const project = scratchDir();
    const sub = join(project, "examples", "deeper");
    mkdirSync(sub, { recursive: true });
    const home = scratchDir();
    // No .keel anywhere yet: the project is where the command runs.
    expect(findProjectDir(sub, home)).toBeUndefined();

    const first = await keelInProcess(["db", "migrate", "--json"], { cwd: project });
    expect(first.exitCode, first.stdout + first.stderr).toBe(0);
    expect(existsSync(join(project, ".keel", "keel.db"))).toBe(true);
    expect(findProjectDir(sub, home)).toBe(project);
    expect(resolveStoreLocation({ cwd: sub, home, env: {} })).toMatchObject({
      dialect: "sqlite",
      path: join(project, ".keel", "keel.db"),
    });

    const ran = await keelInProcess(["run", refund, "--thread", "t1", "--input", input, "--json"], {
      cwd: sub,
    });
    expect(ran.exitCode, ran.stdout + ran.stderr).toBe(0);
    expect(existsSync(join(sub, ".keel"))).toBe(false);
    const listed = await keelInProcess(["runs", "list", "--json"], { cwd: project });
    expect((listed.json.threads as { threadId: string }[]).map((t) => t.threadId)).toEqual(["t1"]);
  });

  it("the home folder's .keel is the global scope, never a project", () => {
    const home = scratchDir();
    mkdirSync(join(home, ".keel"));
    const inside = join(home, "code", "app");
    mkdirSync(inside, { recursive: true });
    expect(findProjectDir(inside, home)).toBeUndefined();
    expect(resolveStoreLocation({ cwd: inside, home, env: {} })).toMatchObject({
      path: join(inside, ".keel", "keel.db"),
    });
  });

  it('"no file at" says where it looked', async () => {
    const project = scratchDir();
    const result = await keelInProcess(["run", "missing.json", "--json"], { cwd: project });
    expect(result.exitCode).toBe(5);
    const error = result.json.error as { code: string; message: string };
    expect(error.code).toBe("NOT_FOUND");
    expect(error.message).toContain(join(project, "missing.json"));
    expect(error.message).toContain(`from ${project}`);
  });
});

describe("output for people", () => {
  it("keel rules run prints no CLIPS banner unless --transcript", async () => {
    const dir = scratchDir();
    const file = join(dir, "hello.clp");
    writeFileSync(file, '(defrule hi => (printout t "hello" crlf))\n(reset)\n(run)\n');
    const plain = await keelInProcess(["rules", "run", file]);
    expect(plain.exitCode, plain.stderr).toBe(0);
    expect(plain.stdout).toBe("hello\n");
    const transcript = await keelInProcess(["rules", "run", "--transcript", file]);
    expect(transcript.stdout).toBe("hello\n         CLIPS (6.30 3/17/15)\nCLIPS> ");
  });

  it("runs show hides the runtime's __ir channels unless --internal", async () => {
    const db = join(scratchDir(), "keel.db");
    const ran = await keelInProcess([
      "run",
      refund,
      "--thread",
      "t",
      "--input",
      input,
      "--db",
      db,
      "--json",
    ]);
    expect(ran.exitCode, ran.stdout + ran.stderr).toBe(0);
    const shown = await keelInProcess(["runs", "show", "t", "--db", db, "--json"]);
    const values = (shown.json.state as { values: Record<string, unknown> }).values;
    expect(values.customer_id).toBe("c1");
    expect(Object.keys(values).filter((key) => key.startsWith("__"))).toEqual([]);
    const internal = await keelInProcess(["runs", "show", "t", "--internal", "--db", db, "--json"]);
    const all = (internal.json.state as { values: Record<string, unknown> }).values;
    expect(Object.keys(all)).toContain("__ir_transitions");
    const human = await keelInProcess(["runs", "show", "t", "--db", db]);
    expect(human.stdout).not.toMatch(/__ir|branch:to/);
    // Times read as times: "2026-11-27 03:41:07Z (just now)", not a bare ISO stamp.
    expect(human.stdout).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ \((just now|\d+ s ago)\)/);
  });

  it("humanTime says when, relative to now", () => {
    const now = Date.UTC(2026, 10, 27, 4, 0, 0);
    expect(humanTime(now - 90_000, now)).toBe("2026-11-27 03:58:30Z (1 min ago)");
    expect(humanTime(new Date(now + 7_200_000).toISOString(), now)).toBe(
      "2026-11-27 06:00:00Z (in 2 h)",
    );
    expect(humanTime(null, now)).toBe("-");
    expect(relative(-3 * 86_400_000)).toBe("3 d ago");
  });
});

describe("keel … | head", () => {
  it("exits quietly when the reader closes the pipe (EPIPE)", () => {
    if (!existsSync(join(root, "dist/cli/main.js"))) throw new Error("run `npm run build` first");
    const db = join(scratchDir(), "keel.db");
    // bash reports the writer's own exit status with pipefail; head stops after one line.
    const child = spawnSync(
      "bash",
      ["-c", `set -o pipefail; "${process.execPath}" bin/keel.js db dump --db "${db}" | head -1`],
      { cwd: root, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } },
    );
    expect(child.stderr).not.toContain("EPIPE");
    expect(child.status, child.stderr).toBe(0);
    expect(child.stdout.split("\n")[0]).toMatch(/^(PRAGMA|BEGIN)/);
  });
});
