/**
 * Differential tests: every corpus program must print, through Keel, exactly what CLIPS 6.30
 * printed for it with `clips -f2` — byte for byte, nothing normalised. The CLIPS transcripts are
 * committed (record.ts), so the suite runs anywhere; where `clips` is on PATH each recording is
 * also re-checked against a live CLIPS run, so a stale recording cannot hide a difference.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import { runBatch } from "../../../src/rules/index.js";
import { bundleKeelCli } from "../../support/child-bundle.js";
import { BAD_INPUT_TIMEOUT_MS, clipsAvailable, hasExitLine, runClipsFile } from "./clips-oracle.js";
import { firstDifference } from "./compare.js";
import { generatedCorpus } from "./generate.js";
import { listPrograms, type Program, recordedOutput, sourceOf } from "./programs.js";

const ROOT = new URL("../../../", import.meta.url).pathname;
const PROGRAMS = [...listPrograms("corpus"), ...listPrograms("generated")];
const LIVE = clipsAvailable();

/** The recorded transcript; a program without one is a defect of the corpus, not a skip. */
function expectedOf(program: Program): string {
  const expected = recordedOutput(program);
  if (expected === undefined) {
    throw new Error(`${program.clpPath} has no recording: run test/rules/differential/record.ts`);
  }
  return expected;
}

describe("the differential corpus itself", () => {
  it("holds the hand-written and generated programs, each recorded and ending in (exit)", () => {
    expect(listPrograms("corpus").length).toBeGreaterThanOrEqual(35);
    expect(listPrograms("generated").length).toBeGreaterThanOrEqual(30);
    for (const program of PROGRAMS) {
      expect(hasExitLine(sourceOf(program)), program.name).toBe(true);
      expect(recordedOutput(program), program.name).toBeDefined();
    }
  });

  it("generated/ is exactly what generate.ts produces from its seed", () => {
    const onDisk = new Map(
      listPrograms("generated").map((program) => [`${program.name}.clp`, sourceOf(program)]),
    );
    expect(onDisk).toEqual(generatedCorpus());
  });
});

describe.each(["corpus", "generated"] as const)(
  "%s programs: Keel prints what CLIPS prints",
  (kind) => {
    for (const program of listPrograms(kind)) {
      it(program.name, () => {
        const expected = expectedOf(program);
        const output = runBatch(sourceOf(program)).output;
        expect(output, firstDifference(expected, output)).toBe(expected);
      });
    }
  },
);

describe.skipIf(!LIVE)("recordings are still what the installed CLIPS prints", () => {
  for (const program of [...PROGRAMS, ...listPrograms("bad")]) {
    it(`${program.kind}/${program.name}`, () => {
      const expected = expectedOf(program);
      const run = runClipsFile(
        program.clpPath,
        program.kind === "bad" ? BAD_INPUT_TIMEOUT_MS : undefined,
      );
      expect(run.stderr).toBe("");
      expect(run.stdout, firstDifference(expected, run.stdout)).toBe(expected);
    });
  }
});

/** A handful of programs run through the real CLI as a child process, as a user would. */
const CLI_SAMPLES = [
  "corpus/activation-order",
  "corpus/governance-pack",
  "corpus/run-limit",
  "corpus/facts-display",
  "generated/gen-06",
];

describe("keel rules run <file.clp> prints the CLIPS transcript", () => {
  // A process of its own: `rules run` reads a program's input from fd 0 synchronously.
  let keel: string;
  beforeAll(async () => {
    keel = await bundleKeelCli();
  });

  for (const sample of CLI_SAMPLES) {
    const program = PROGRAMS.find((candidate) => `${candidate.kind}/${candidate.name}` === sample);
    it(sample, () => {
      expect(program, `${sample} is in the corpus`).toBeDefined();
      if (!program) return;
      const child = spawnSync(
        process.execPath,
        [keel, "rules", "run", "--transcript", program.clpPath],
        {
          cwd: ROOT,
          encoding: "utf8",
          timeout: 60_000,
        },
      );
      const expected = expectedOf(program);
      expect(child.stdout, firstDifference(expected, child.stdout)).toBe(expected);
      expect(child.status, child.stderr).toBe(0);
    });
  }

  it("--json prints the run's firings and final facts as data", () => {
    const program = PROGRAMS.find((candidate) => candidate.name === "governance-pack");
    if (!program) throw new Error("governance-pack is missing from the corpus");
    const child = spawnSync(process.execPath, [keel, "rules", "run", "--json", program.clpPath], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(child.status, child.stderr).toBe(0);
    const data = JSON.parse(child.stdout) as Record<string, unknown>;
    const batch = runBatch(readFileSync(program.clpPath, "utf8"));
    expect(data).toMatchObject({
      firings: JSON.parse(JSON.stringify(batch.firings)),
      facts: JSON.parse(JSON.stringify(batch.facts)),
    });
    // governance-pack fires `announce` once per decision, five decisions in all.
    expect(batch.firings.length).toBeGreaterThanOrEqual(5);
  });
});
