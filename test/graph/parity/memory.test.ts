/**
 * A 10,000-step run without a checkpointer keeps no per-step garbage alive. Measured in a child
 * process started with --expose-gc (see retention.ts for how); the control run, whose node leaks
 * every payload on purpose, proves the measurement sees retention of this size.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { RetentionReport } from "./retention.js";

const probe = fileURLToPath(new URL("./memory-probe.ts", import.meta.url));

function runProbe(...args: string[]): RetentionReport {
  const child = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", probe, ...args], {
    encoding: "utf8",
    timeout: 120_000,
  });
  if (child.status !== 0) {
    throw new Error(`memory probe ${args.join(" ")} exited ${child.status}: ${child.stderr}`);
  }
  return JSON.parse(child.stdout.trim().split("\n").at(-1) ?? "") as RetentionReport;
}

/**
 * 9,000 measured steps of ~2 KB payloads: retaining them all adds ~18 MB, and even a 120-byte
 * record per step would cross this bound. (LangGraph.js itself grows ~5 MB here.)
 */
const boundBytes = 1024 * 1024;

describe("graph memory: long runs without a checkpointer", () => {
  it("the measurement detects a node that keeps every payload (control)", () => {
    const leaking = runProbe("keel", "--retain");
    expect(leaking.finalN).toBe(10_000);
    expect(leaking.growthBytes).toBeGreaterThan(10 * boundBytes);
  });

  it("a 10,000-step loop keeps heap growth bounded after warm-up", () => {
    const report = runProbe("keel");
    expect(report.finalN).toBe(10_000);
    expect(report.growthBytes).toBeLessThan(boundBytes);
  });
});
