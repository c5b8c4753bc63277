/**
 * Waltz, the line-labelling benchmark of the OPS5 suite, as CLIPS's sources ship it
 * (examples/waltz: waltz.clp and waltzNN.fct). Those files are not part of Keel (fetched code is
 * never committed): the benchmark runs when KEEL_BENCH_WALTZ_DIR names a directory holding them,
 * and is skipped otherwise. The program is the rules with the facts as a deffacts, reset, run,
 * then the statistics and the number of facts, so Keel's and CLIPS's work can be compared.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The directory of waltz.clp and waltzNN.fct, or null when not given or incomplete. */
export function waltzDir(): string | null {
  const dir = process.env.KEEL_BENCH_WALTZ_DIR;
  if (!dir || !existsSync(join(dir, "waltz.clp"))) return null;
  return dir;
}

/** The batch program for one size (12, 25, 37 or 50). */
export function waltzProgram(dir: string, size: number): string {
  const rules = readFileSync(join(dir, "waltz.clp"), "latin1");
  const facts = readFileSync(join(dir, `waltz${size}.fct`), "latin1");
  return [
    rules,
    "(deffacts data",
    facts,
    ")",
    "(watch statistics)",
    "(reset)",
    "(run)",
    "(printout t (length$ (get-fact-list)) crlf)",
    "(exit)",
    "",
  ].join("\n");
}
