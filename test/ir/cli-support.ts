import { keelInProcess } from "../support/cli.js";

export const root = new URL("../../", import.meta.url).pathname;

/** What a `keel … --json` call printed and its exit code. */
export interface CliJson {
  code: number | null;
  out: Record<string, unknown> & {
    error?: { code: string; message: string; details: Record<string, unknown> };
  };
  stderr: string;
}

/**
 * Runs the real CLI with `--json` (from the repository root unless `cwd`), in this process
 * (test/support/cli.ts): the program bin/keel.js runs, without a process start per call.
 */
export async function keelJson(args: string[], cwd = root): Promise<CliJson> {
  const result = await keelInProcess([...args, "--json"], { cwd });
  try {
    return { code: result.exitCode, out: JSON.parse(result.stdout), stderr: result.stderr };
  } catch {
    throw new Error(`not JSON (exit ${result.exitCode}): ${result.stdout}\n${result.stderr}`);
  }
}

/** `from>to` for each recorded transition. */
export function pathsOf(out: CliJson["out"]): string[] {
  return (out.transitions as { from: string; to: string }[]).map((t) => `${t.from}>${t.to}`);
}
