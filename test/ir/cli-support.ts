import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

export const root = new URL("../../", import.meta.url).pathname;
// tsx by file URL, so the CLI also starts from a directory outside the repository.
const tsx = pathToFileURL(join(root, "node_modules/tsx/dist/loader.mjs")).href;

/** What a `keel … --json` call printed and its exit code. */
export interface CliJson {
  code: number | null;
  out: Record<string, unknown> & {
    error?: { code: string; message: string; details: Record<string, unknown> };
  };
  stderr: string;
}

/** Runs the real CLI in a child process with `--json` (from the repository root), as a user would. */
export function keelJson(args: string[], cwd = root): CliJson {
  const result = spawnSync(
    process.execPath,
    ["--import", tsx, join(root, "src/cli/run.ts"), ...args, "--json"],
    { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } },
  );
  try {
    return { code: result.status, out: JSON.parse(result.stdout), stderr: result.stderr };
  } catch {
    throw new Error(`not JSON (exit ${result.status}): ${result.stdout}\n${result.stderr}`);
  }
}

/** `from>to` for each recorded transition. */
export function pathsOf(out: CliJson["out"]): string[] {
  return (out.transitions as { from: string; to: string }[]).map((t) => `${t.from}>${t.to}`);
}
