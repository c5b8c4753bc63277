/**
 * The `keel` CLI run in the test's own process: the program `bin/keel.js` runs, built by
 * `buildProgram()`, with stdout, stderr, stdin, the environment, the working directory and the
 * exit code swapped in for the call. A child process costs 2–5 s of CPU on this box (node, tsx
 * and every module of the CLI loaded again); a call here costs what the verb does.
 *
 * Use a child process only when the process itself is under test: its death (SIGKILL, crash
 * trials), signals, a real terminal, `bin/keel.js` as installed, or a verb that reads fd 0
 * synchronously (`keel rules run` reading a CLIPS program's input).
 *
 * Calls must not overlap (the globals they swap are the process's): await each one.
 */
import { spawnSync } from "node:child_process";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { buildProgram } from "../../src/cli/program.js";

/** What one in-process `keel` run printed and the exit code it set. */
export interface KeelRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** The last stdout line parsed as JSON (`--json`), or `{}`. */
  json: Record<string, unknown>;
}

export interface KeelRunOptions {
  /** The working directory of the run (default: the test's). */
  cwd?: string;
  /** Laid over the environment (`undefined` removes a variable); NO_COLOR=1 unless given. */
  env?: Record<string, string | undefined>;
  /** What the verb reads from stdin (default: nothing, as `spawnSync` without `input`). */
  input?: string;
}

let running = false;

/**
 * Runs the real `keel` program in this process, in `cwd`, with `env` laid over the environment
 * and the KEEL_ variables of the parent cleared, `input` as stdin. Stdout and stderr are captured.
 *
 * @example
 * const run = await keelInProcess(["ir", "validate", "examples/triage.json", "--json"]);
 * expect(run.exitCode).toBe(0);
 */
export async function keelInProcess(
  args: readonly string[],
  options: KeelRunOptions = {},
): Promise<KeelRun> {
  if (running) throw new Error("keelInProcess: a run is already under way in this process");
  running = true;
  const out: string[] = [];
  const err: string[] = [];
  const writeOut = process.stdout.write;
  const writeErr = process.stderr.write;
  const stdinProperty = Object.getOwnPropertyDescriptor(process, "stdin");
  const savedEnv = { ...process.env };
  const savedCwd = process.cwd();
  for (const key of Object.keys(process.env)) if (key.startsWith("KEEL_")) delete process.env[key];
  for (const [key, value] of Object.entries({ NO_COLOR: "1", ...options.env })) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  if (options.cwd) process.chdir(options.cwd);
  process.stdout.write = capture(out);
  process.stderr.write = capture(err);
  const stdin = Readable.from(options.input === undefined ? [] : [Buffer.from(options.input)]);
  Object.defineProperty(process, "stdin", { configurable: true, enumerable: true, value: stdin });
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
    if (stdinProperty) Object.defineProperty(process, "stdin", stdinProperty);
    process.exitCode = 0;
    process.chdir(savedCwd);
    for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
    Object.assign(process.env, savedEnv);
    running = false;
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

/** A `write` that keeps what it is given (and calls a callback, as a stream's write does). */
function capture(into: string[]): typeof process.stdout.write {
  return ((chunk: string | Uint8Array, encoding?: unknown, callback?: unknown) => {
    into.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
    const done = typeof encoding === "function" ? encoding : callback;
    if (typeof done === "function") queueMicrotask(() => done());
    return true;
  }) as typeof process.stdout.write;
}

const RUN = fileURLToPath(new URL("../../src/cli/run.ts", import.meta.url));
// tsx by file URL: a child may start in a folder outside the repository.
const TSX = import.meta.resolve("tsx");

/** What a child-process `keel` run printed and how it ended. */
export interface KeelChildRun extends Omit<KeelRun, "exitCode"> {
  /** The exit code, or null when a signal ended the process. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * Runs `keel` from source in a child process (node + tsx: seconds of CPU per call). Only for
 * what needs a process of its own: its exit as the OS sees it, or state that must not survive in
 * memory between two calls. Same options as `keelInProcess`.
 */
export function keelChild(args: readonly string[], options: KeelRunOptions = {}): KeelChildRun {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith("KEEL_")) delete env[key];
  for (const [key, value] of Object.entries({ NO_COLOR: "1", ...options.env })) env[key] = value;
  const result = spawnSync(process.execPath, ["--import", TSX, RUN, ...args], {
    cwd: options.cwd,
    input: options.input,
    encoding: "utf8",
    env,
  });
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(result.stdout.trim().split("\n").pop() ?? "{}");
  } catch {
    // human output
  }
  return {
    exitCode: result.status,
    signal: result.signal,
    stdout: result.stdout,
    stderr: result.stderr,
    json,
  };
}
