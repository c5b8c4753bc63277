/**
 * Child processes for the tests that need real ones (the crash test, the lease test): a script
 * bundled once with esbuild, started with plain `node` (a fraction of what `tsx` takes), talking
 * through lines on stdout and stdin.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleChild } from "../../support/child-bundle.js";

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = join(here, "..", "..", "..");

/** Bundles `entry` (a path under test/checkpoint) once per test process (see child-bundle.ts). */
export async function buildScript(entry: string): Promise<{ path: string }> {
  return { path: await bundleChild(join(here, "..", entry)) };
}

/** How a child ended, with everything it printed. */
export interface ChildExit {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running child: its lines as they come, stdin, and its exit. */
export interface Child {
  process: ChildProcess;
  /** Resolves with the first stdout line that `match` accepts (rejects if the child exits first). */
  line(match: (line: string) => boolean): Promise<string>;
  send(line: string): void;
  exit: Promise<ChildExit>;
}

/** Starts `node <script> …args`. */
export function startScript(script: string, args: readonly string[]): Child {
  const child = spawn(process.execPath, [script, ...args], {
    cwd: repoRoot,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let seen = 0;
  const waiters: Array<{ match: (line: string) => boolean; resolve: (line: string) => void }> = [];
  const lines: string[] = [];
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    const complete = stdout.split("\n");
    complete.pop();
    for (; seen < complete.length; seen++) {
      const line = complete[seen] as string;
      lines.push(line);
      for (let i = waiters.length - 1; i >= 0; i--) {
        const waiter = waiters[i]!;
        if (waiter.match(line)) {
          waiters.splice(i, 1);
          waiter.resolve(line);
        }
      }
    }
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  // Writing to a child that died is not an error of the test.
  child.stdin?.on("error", () => {});
  const exit = new Promise<ChildExit>((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (exitCode, signal) => resolve({ exitCode, signal, stdout, stderr }));
  });
  return {
    process: child,
    line(match) {
      const found = lines.find(match);
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        waiters.push({ match, resolve });
        exit.then((ended) =>
          reject(
            new Error(
              `the child exited (${ended.exitCode ?? ended.signal}) before the line; stderr: ${ended.stderr.slice(0, 800)}`,
            ),
          ),
        );
      });
    },
    send(line) {
      child.stdin?.write(`${line}\n`);
    },
    exit,
  };
}

/** The last line a child printed, parsed as JSON. */
export function lastJson<T>(exit: ChildExit): T {
  return JSON.parse(exit.stdout.trim().split("\n").pop() ?? "null") as T;
}
