import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** One recorded case of the reference implementation (shared/reference/ledgermind). */
export interface ReferenceCase {
  id: string;
  fn: string;
  note?: string;
  input: Record<string, unknown>;
  expected: Record<string, unknown>;
}

/** Reads a recorded case file from ../shared/reference/ledgermind at test time. */
export function referenceCases(file: string): ReferenceCase[] {
  const url = new URL(`../../../shared/reference/ledgermind/${file}`, import.meta.url);
  const parsed = JSON.parse(readFileSync(fileURLToPath(url), "utf8")) as { cases: ReferenceCase[] };
  return parsed.cases;
}
