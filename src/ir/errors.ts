import { KeelError } from "../core/index.js";
import type { Problem } from "./problems.js";

/**
 * An IR document (or model) failed validation. `problems` holds every problem found; they are
 * also in `details.problems`, so `--json` error output carries them.
 */
export class IrValidationError extends KeelError {
  readonly problems: readonly Problem[];

  constructor(what: string, problems: readonly Problem[]) {
    const first = problems[0];
    const summary = first ? ` First: ${first.path}: ${first.message}` : "";
    super("IR_INVALID", `${what} is not valid: ${problems.length} problem(s).${summary}`, {
      details: { problems },
      hint: "Run `keel ir validate <file>` to list every problem.",
    });
    this.problems = problems;
  }
}
