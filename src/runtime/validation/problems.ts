import type { z } from "zod";
import {
  jsonPointer,
  type Problem,
  problemsFromIssues,
  renderActual,
  valueAt,
} from "../../ir/problems.js";

/**
 * One thing wrong with a piece of user data — the same `Problem` the IR reports (`code`,
 * `path` as an RFC 6901 JSON Pointer with `/` for the whole document, `message`, `expected`,
 * `actual`, `hint`), so every Keel validator speaks one language and the CLI formats one shape.
 */
export type ValidationProblem = Problem;

/** The outcome of validating user data: the parsed value, or every problem found. */
export type ValidationResult<T> =
  | { ok: true; value: T; problems: [] }
  | { ok: false; problems: ValidationProblem[] };

/** An RFC 6901 JSON Pointer for a path (`/` for the whole document). */
export const toJsonPointer = jsonPointer;

/**
 * Converts zod issues into problems with the IR's converter. Cross-field checks of the runtime
 * contracts raise `custom` issues that carry their own `expected` and `hint` in `params`; those
 * become `value_error` problems that keep them, rather than a generic hint.
 */
export function problemsFromZodIssues(
  issues: readonly z.core.$ZodIssue[],
  input: unknown,
): ValidationProblem[] {
  return issues.flatMap((issue) =>
    issue.code === "custom" ? [customProblem(issue, input)] : problemsFromIssues([issue], input),
  );
}

function customProblem(issue: z.core.$ZodIssueCustom, input: unknown): ValidationProblem {
  const params = issue.params ?? {};
  const expected = params.expected;
  return {
    code: "value_error",
    path: jsonPointer(issue.path),
    message: issue.message,
    expected:
      expected === undefined
        ? "a valid value"
        : typeof expected === "string"
          ? expected
          : renderActual(expected),
    actual: renderActual(valueAt(input, issue.path)),
    hint: typeof params.hint === "string" ? params.hint : "Fix the value.",
  };
}
