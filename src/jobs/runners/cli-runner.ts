import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseCliOutput } from "./cli-output.js";
import type { JobRunner, RunnerJob, RunnerResult } from "./runner.js";
import { splitCommand } from "./split-command.js";

/** How the cli runner is set up. */
export interface CliRunnerOptions {
  /** The command line (default: the `jobs.runner.command` setting). */
  readonly command: string;
  /** Output beyond this many bytes stops the child and fails the job (default 2 × max report). */
  readonly maxOutputBytes?: number;
}

/**
 * The `cli` runner: spawns the configured command (no shell) with the job file's text on stdin,
 * `KEEL_JOB_ID` and `KEEL_JOB_FILE` in its environment, and takes the report from its stdout
 * (see {@link parseCliOutput}). The child is killed (SIGKILL) when the job's TTL runs out
 * (`timeout`); a command that cannot start (missing binary) or exits non-zero fails that job as
 * `runner-error` — never the queue. A parsed report is written to `<.keel>/reports/<id>.json`.
 */
export function cliRunner(options: CliRunnerOptions): JobRunner {
  const argv = splitCommand(options.command);
  return {
    kind: "cli",
    describe: () => options.command,
    run: (input) =>
      runChild(argv, input, options.maxOutputBytes ?? input.ctx.config.maxReportBytes * 2),
  };
}

function runChild(
  argv: readonly string[],
  input: RunnerJob,
  maxOutputBytes: number,
): Promise<RunnerResult> {
  const started = Date.now();
  return new Promise((resolvePromise) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let stderrTail = "";
    let stopped: "timeout" | "too-large" | "aborted" | null = null;
    let settled = false;
    const child = spawn(argv[0] as string, argv.slice(1), {
      cwd: input.ctx.root,
      env: { ...process.env, KEEL_JOB_ID: input.job.id, KEEL_JOB_FILE: input.jobFilePath },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const finish = (result: Omit<RunnerResult, "durationMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      input.signal?.removeEventListener("abort", onAbort);
      resolvePromise({ ...result, durationMs: Date.now() - started });
    };
    const stop = (why: "timeout" | "too-large" | "aborted") => {
      stopped ??= why;
      child.kill("SIGKILL");
    };
    const timer = setTimeout(() => stop("timeout"), Math.max(0, input.timeoutMs));
    const onAbort = () => stop("aborted");
    input.signal?.addEventListener("abort", onAbort);
    child.stdout.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxOutputBytes) return stop("too-large");
      chunks.push(chunk);
      input.onDelta?.(chunk.toString("utf8"));
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString("utf8")).slice(-2000);
    });
    // A child that exits without reading its stdin must not crash Keel with EPIPE.
    child.stdin.on("error", () => {});
    child.stdin.end(input.jobFileText);
    child.on("error", (error: NodeJS.ErrnoException) => {
      finish({
        failureReason: "runner-error",
        exitCode: error.code === "ENOENT" ? 127 : null,
        error:
          error.code === "ENOENT"
            ? `Runner command not found: ${argv[0]} (set jobs.runner.command)`
            : `Runner could not start: ${error.message}`,
      });
    });
    child.on("close", (code, signal) => {
      if (stopped === "timeout") {
        return finish({
          failureReason: "timeout",
          exitCode: null,
          error: `Runner killed after the job's TTL (${Math.round(input.timeoutMs / 1000)} s)`,
        });
      }
      if (stopped === "too-large") {
        return finish({
          failureReason: "runner-error",
          exitCode: null,
          error: `Runner output passed ${maxOutputBytes} bytes; it was stopped`,
        });
      }
      if (stopped === "aborted") {
        return finish({
          failureReason: "runner-error",
          exitCode: null,
          error: "Runner stopped: the worker shut down",
        });
      }
      if (code !== 0) {
        return finish({
          failureReason: "runner-error",
          exitCode: code,
          error: `Subprocess exited with ${code === null ? `signal ${signal}` : `code ${code}`}${stderrTail ? `: ${stderrTail.trim().slice(-500)}` : ""}`,
        });
      }
      const parsed = parseCliOutput(Buffer.concat(chunks).toString("utf8"));
      let reportPath: string | undefined;
      if (parsed.report !== undefined) {
        const dir = join(input.ctx.keelDir, "reports");
        mkdirSync(dir, { recursive: true });
        reportPath = join(dir, `${input.job.id}.json`);
        writeFileSync(reportPath, `${JSON.stringify(parsed.report, null, 2)}\n`);
      }
      finish({
        exitCode: 0,
        report: parsed.report,
        reportProblems: parsed.problems,
        tokensIn: parsed.tokensIn,
        tokensOut: parsed.tokensOut,
        model: parsed.model,
        ...(reportPath ? { reportFile: reportPath } : {}),
      });
    });
  });
}
