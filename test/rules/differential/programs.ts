/**
 * The differential corpus on disk. Each program `NAME.clp` sits next to `NAME.clips.txt`, what
 * CLIPS 6.30 printed for it (written by record.ts), so the suite runs without CLIPS installed.
 *
 * - corpus/: hand-written programs, one or a few constructs each;
 * - generated/: programs written by generate.ts from a fixed seed;
 * - bad/: programs with the errors the issue names (CLIPS's reaction is recorded too).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";

export const DIFFERENTIAL_DIR = new URL(".", import.meta.url).pathname;

export type ProgramKind = "corpus" | "generated" | "bad";

/** One program of the corpus and where its recorded CLIPS output lives. */
export interface Program {
  kind: ProgramKind;
  name: string;
  clpPath: string;
  expectedPath: string;
}

/** Every program of one kind, sorted by name so the suite's order is stable. */
export function listPrograms(kind: ProgramKind): Program[] {
  const dir = join(DIFFERENTIAL_DIR, kind);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith(".clp"))
    .sort()
    .map((file) => {
      const name = basename(file, ".clp");
      return {
        kind,
        name,
        clpPath: join(dir, file),
        expectedPath: join(dir, `${name}.clips.txt`),
      };
    });
}

/** The program's source text. */
export function sourceOf(program: Program): string {
  return readFileSync(program.clpPath, "utf8");
}

/** What CLIPS printed when the program was recorded, or undefined if never recorded. */
export function recordedOutput(program: Program): string | undefined {
  return existsSync(program.expectedPath) ? readFileSync(program.expectedPath, "utf8") : undefined;
}
