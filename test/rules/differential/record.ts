/**
 * Records what CLIPS 6.30 prints for every program of the differential corpus:
 *
 *   npx tsx test/rules/differential/record.ts            # corpus, generated and bad programs
 *   npx tsx test/rules/differential/record.ts corpus     # one kind
 *
 * The recording is CLIPS's stdout, byte for byte: nothing is stripped. A program without an
 * `(exit)` line, that times out, exits non-zero or writes to stderr is refused, because its
 * output would not be a faithful `clips -f2` transcript (see clips-oracle.ts). The one exception
 * is a bad/ program whose unbalanced parentheses swallow the `(exit)`: CLIPS then never ends, so
 * what it printed before BAD_INPUT_TIMEOUT_MS is recorded (its banner and prompt included).
 */
import { writeFileSync } from "node:fs";
import { BAD_INPUT_TIMEOUT_MS, clipsAvailable, hasExitLine, runClipsFile } from "./clips-oracle.js";
import { listPrograms, type ProgramKind, sourceOf } from "./programs.js";

const KINDS: readonly ProgramKind[] = ["corpus", "generated", "bad"];

function main(): number {
  if (!clipsAvailable()) {
    console.error("clips is not on PATH: apt-get install -y clips");
    return 2;
  }
  const requested = process.argv.slice(2);
  const kinds = KINDS.filter((kind) => requested.length === 0 || requested.includes(kind));
  let failures = 0;
  let recorded = 0;
  for (const kind of kinds) {
    for (const program of listPrograms(kind)) {
      const problem = recordOne(program);
      if (problem) {
        failures++;
        console.error(`${kind}/${program.name}: ${problem}`);
      } else {
        recorded++;
      }
    }
  }
  console.log(`recorded ${recorded} program(s), ${failures} refused`);
  return failures === 0 ? 0 : 1;
}

function recordOne(program: ReturnType<typeof listPrograms>[number]): string | undefined {
  if (!hasExitLine(sourceOf(program))) return "has no (exit) line";
  const bad = program.kind === "bad";
  const run = runClipsFile(program.clpPath, bad ? BAD_INPUT_TIMEOUT_MS : undefined);
  if (run.timedOut && !bad) return "timed out";
  if (run.timedOut)
    console.log(`bad/${program.name}: CLIPS never ends; recorded its output so far`);
  else if (run.status !== 0) return `clips exited with ${run.status}`;
  if (run.stderr !== "") return `clips wrote to stderr: ${run.stderr}`;
  writeFileSync(program.expectedPath, run.stdout);
  return undefined;
}

process.exitCode = main();
