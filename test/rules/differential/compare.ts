/**
 * Describes where two transcripts part, so a failing differential test names the first line
 * that differs instead of dumping two long outputs.
 */

/** undefined when equal; otherwise the 1-based line number and both versions of that line. */
export function firstDifference(expected: string, actual: string): string | undefined {
  if (expected === actual) return undefined;
  const want = expected.split("\n");
  const got = actual.split("\n");
  const lines = Math.max(want.length, got.length);
  for (let index = 0; index < lines; index++) {
    if (want[index] !== got[index]) {
      return [
        `first difference at line ${index + 1}:`,
        `  clips: ${show(want[index])}`,
        `  keel:  ${show(got[index])}`,
      ].join("\n");
    }
  }
  return "outputs differ only in line endings";
}

function show(line: string | undefined): string {
  return line === undefined ? "(end of output)" : JSON.stringify(line);
}
