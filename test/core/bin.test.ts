/**
 * The installed `keel` command: bin/keel.js runs the build in dist/ (made by `npm install`'s
 * prepare script, or `npm run build`). Spawned as a user would, from outside the repository.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

const root = new URL("../../", import.meta.url).pathname;

function keel(...args: string[]) {
  return spawnSync(process.execPath, [join(root, "bin/keel.js"), ...args], {
    cwd: tmpdir(),
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1" },
  });
}

describe("the keel bin", () => {
  beforeAll(() => {
    if (!existsSync(join(root, "dist/cli/main.js")))
      throw new Error("dist/ is missing: run `npm run build` (npm install runs it).");
  });

  it("--version and -V print the package version and exit 0", () => {
    const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    for (const flag of ["--version", "-V"]) {
      const result = keel(flag);
      expect({ status: result.status, stdout: result.stdout.trim() }).toEqual({
        status: 0,
        stdout: version,
      });
    }
  });

  it("--help describes the commands and exits 0; an unknown command exits 2", () => {
    const help = keel("--help");
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: keel \[options\] \[command\]/);
    for (const command of ["ir", "run", "rules", "runs"])
      expect(help.stdout).toContain(`\n  ${command} `);
    const unknown = keel("no-such-command");
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("unknown command");
  });
});
