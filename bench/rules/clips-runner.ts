/**
 * Times CLIPS 6.30 on a batch program as a child process (`clips -f2 file.clp`). The machine
 * is shared and often overloaded, so the figure is the child's CPU time (user + system), not
 * wall time; a process start is not the engine's work, so callers subtract the CPU time of an
 * empty program measured in the same run (startupMillis).
 *
 * The CPU time comes from bash's `time` keyword, which reads getrusage(RUSAGE_CHILDREN) and
 * prints it to the millisecond. (GNU /usr/bin/time prints centiseconds only: Manners 16 read as
 * 0 ms and every figure was a multiple of 10 ms.)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface ClipsTiming {
  /** CPU milliseconds (user + system) of the clips process, to the millisecond. */
  millis: number;
  stdout: string;
}

const MARK = "keel-bench-cpu ";
const SCRIPT = `TIMEFORMAT='${MARK}%3U %3S'; time clips -f2 "$1" < /dev/null`;

/** Runs one program once; throws if CLIPS is missing, fails or times out. */
export function timeClips(source: string, timeoutMs = 600_000): ClipsTiming {
  const dir = mkdtempSync(join(tmpdir(), "keel-bench-clips-"));
  try {
    const file = join(dir, "program.clp");
    writeFileSync(file, source);
    const result = spawnSync("bash", ["-c", SCRIPT, "bash", file], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: timeoutMs,
      killSignal: "SIGKILL",
      maxBuffer: 256 * 1024 * 1024,
    });
    if (result.error) throw result.error;
    if (result.status !== 0)
      throw new Error(`clips exited with ${result.status}: ${result.stderr}`);
    const line = result.stderr.split("\n").find((entry) => entry.startsWith(MARK)) ?? "";
    const [user, system] = line.slice(MARK.length).split(" ").map(Number);
    return {
      millis: ((user ?? Number.NaN) + (system ?? Number.NaN)) * 1000,
      stdout: result.stdout,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** True when `clips` and bash are on PATH. */
export function clipsInstalled(): boolean {
  return spawnSync("bash", ["-c", "command -v clips"]).status === 0;
}

/** The median CPU time CLIPS takes to start and exit on an empty program. */
export function startupMillis(rounds = 9): number {
  const times = Array.from({ length: rounds }, () => timeClips("(exit)\n").millis).sort(
    (a, b) => a - b,
  );
  return times[Math.floor(times.length / 2)] ?? 0;
}
