/**
 * Prints which corpus programs Keel matches CLIPS on and, for each mismatch, the first line
 * that differs — a quick view for whoever works on the engine (the test suite is the gate):
 *
 *   npx tsx test/rules/differential/status.ts
 */
import { runBatch } from "../../../src/rules/index.js";
import { firstDifference } from "./compare.js";
import { listPrograms, recordedOutput, sourceOf } from "./programs.js";

let passed = 0;
const failures: string[] = [];
for (const program of [...listPrograms("corpus"), ...listPrograms("generated")]) {
  const expected = recordedOutput(program);
  const label = `${program.kind}/${program.name}`;
  if (expected === undefined) {
    failures.push(`${label}: no recording (run record.ts)`);
    continue;
  }
  let output: string;
  try {
    const result = runBatch(sourceOf(program));
    output = result.output + (result.error ? `\n[keel error] ${result.error.message}` : "");
  } catch (error) {
    output = `[keel threw] ${error instanceof Error ? error.message : String(error)}`;
  }
  const difference = firstDifference(expected, output);
  if (difference === undefined) passed++;
  else failures.push(`${label}: ${difference.replaceAll("\n", "\n    ")}`);
}
for (const failure of failures) console.log(`FAIL ${failure}`);
console.log(`\n${passed} match CLIPS, ${failures.length} differ`);
