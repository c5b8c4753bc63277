/**
 * Runs the reference implementation, CLIPS 6.30, on a `.clp` file the way the issue defines the
 * oracle: `clips -f2 file.clp < /dev/null`. Shared by the recorder, the differential suite and
 * the benchmark so all three observe CLIPS identically.
 *
 * Two facts about `clips -f2` that shape the corpus (both checked on CLIPS 6.30):
 * - it prints only what the program prints (printout, facts, agenda, error messages); commands'
 *   return values and construct definitions are not echoed;
 * - when the file does not end in `(exit)`, CLIPS prints its banner and a `CLIPS> ` prompt and
 *   then spins forever on the closed stdin. Every program therefore reaches an `(exit)` line, and a run
 *   is killed after a timeout rather than trusted to end.
 */
import { spawnSync } from "node:child_process";

/** What one CLIPS run printed. */
export interface ClipsRun {
  stdout: string;
  stderr: string;
  status: number | null;
  timedOut: boolean;
}

/** How long a bad-input program may run: CLIPS spins forever when a form swallows `(exit)`. */
export const BAD_INPUT_TIMEOUT_MS = 3_000;

let available: boolean | undefined;

/** True when a `clips` executable is on PATH (checked once per process). */
export function clipsAvailable(): boolean {
  if (available === undefined) {
    const probe = spawnSync("sh", ["-c", "command -v clips"], { encoding: "utf8" });
    available = probe.status === 0 && probe.stdout.trim() !== "";
  }
  return available;
}

/** Runs `clips -f2 <file>` with stdin closed, killing it after `timeoutMs`. */
export function runClipsFile(file: string, timeoutMs = 60_000): ClipsRun {
  const result = spawnSync("clips", ["-f2", file], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: timeoutMs,
    killSignal: "SIGKILL",
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.error && (result.error as NodeJS.ErrnoException).code === "ENOENT") {
    throw new Error("clips is not on PATH: apt-get install -y clips");
  }
  return {
    stdout: result.stdout ?? "",
    stderr: result.stderr ?? "",
    status: result.status,
    timedOut: result.signal === "SIGKILL",
  };
}

/** A program must reach an `(exit)` line or CLIPS never ends; see the module comment for why. */
export function hasExitLine(source: string): boolean {
  return source.split("\n").some((line) => line.trim() === "(exit)");
}
