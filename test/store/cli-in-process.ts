import type { Command } from "commander";
import { buildProgram } from "../../src/cli/program.js";

/** What one in-process `keel` run printed and the exit code it set. */
export interface KeelRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** The last stdout line parsed as JSON (`--json`), or `{}`. */
  json: Record<string, unknown>;
}

/**
 * Runs the real `keel` program in this process (as bin/keel does, without a child process:
 * much faster on a loaded machine), in `cwd`, with `env` laid over the environment and the
 * KEEL_ variables of the parent cleared. Stdout and stderr are captured.
 */
export async function keelInProcess(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string | undefined> } = {},
): Promise<KeelRun> {
  const out: string[] = [];
  const err: string[] = [];
  const writeOut = process.stdout.write.bind(process.stdout);
  const writeErr = process.stderr.write.bind(process.stderr);
  const savedEnv = { ...process.env };
  const savedCwd = process.cwd();
  for (const key of Object.keys(process.env)) if (key.startsWith("KEEL_")) delete process.env[key];
  for (const [key, value] of Object.entries({ NO_COLOR: "1", ...options.env })) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  if (options.cwd) process.chdir(options.cwd);
  process.stdout.write = ((chunk: string) =>
    out.push(String(chunk)) > 0) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string) =>
    err.push(String(chunk)) > 0) as typeof process.stderr.write;
  process.exitCode = 0;
  let exitCode: number;
  try {
    const program = buildProgram().exitOverride();
    try {
      await program.parseAsync(["node", "keel", ...args]);
      exitCode = Number(process.exitCode ?? 0);
    } catch (error) {
      // Commander's usage errors: what bin/keel turns into exit 2 (help and version: 0).
      const code = (error as { exitCode?: number }).exitCode;
      if (code === undefined) throw error;
      exitCode = code === 0 ? 0 : 2;
    }
  } finally {
    process.stdout.write = writeOut;
    process.stderr.write = writeErr;
    process.exitCode = 0;
    process.chdir(savedCwd);
    for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
    Object.assign(process.env, savedEnv);
  }
  const stdout = out.join("");
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(stdout.trim().split("\n").pop() ?? "{}");
  } catch {
    // human output
  }
  return { exitCode, stdout, stderr: err.join(""), json };
}

/** The backquoted commands in a remedy that start with `keel `. */
export function keelCommandsIn(remedy: string | null | undefined): string[] {
  return [...(remedy ?? "").matchAll(/`([^`]+)`/g)]
    .map((m) => m[1] ?? "")
    .filter((command) => command.startsWith("keel "));
}

/**
 * Problems with a `keel …` command as a remedy writes it: a verb the program does not have, or
 * an option its verb does not take. Placeholders (`<backup>`) stand for arguments.
 */
export function unknownKeelCommandParts(command: string): string[] {
  const words = command.split(/\s+/).slice(1);
  let at: Command = buildProgram();
  const problems: string[] = [];
  let index = 0;
  for (; index < words.length; index++) {
    const word = words[index] ?? "";
    const sub = at.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) break;
    at = sub;
  }
  if (at.commands.length > 0) problems.push(`"${command}": "${at.name()}" needs a subcommand`);
  for (const word of words.slice(index)) {
    if (!word.startsWith("-")) continue;
    const flag = word.split("=")[0] ?? word;
    if (!at.options.some((o) => o.long === flag || o.short === flag)) {
      problems.push(`"${command}": ${at.name()} has no option ${flag}`);
    }
  }
  return problems;
}
