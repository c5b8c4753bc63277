import type { z } from "zod";
import {
  problemsFromZodIssues,
  type ValidationProblem,
  type ValidationResult,
} from "../../runtime/index.js";
import { DecisionContent, ProposalContent } from "./content.js";
import { MemoryEvent } from "./event.js";
import {
  AcceptProposalRequest,
  MemoryDecision,
  RecordDecisionRequest,
  ResolutionIntent,
  SearchDecisionsRequest,
  SupersedeDecisionRequest,
  SyncGitHistoryRequest,
} from "./requests.js";
import { DecisionStream } from "./stream.js";

/** The memory's wire models by their seed names. */
export const MEMORY_MODELS = {
  MemoryEvent,
  DecisionContent,
  ProposalContent,
  DecisionStream,
  MemoryDecision,
  ResolutionIntent,
  RecordDecisionRequest,
  SupersedeDecisionRequest,
  SearchDecisionsRequest,
  AcceptProposalRequest,
  SyncGitHistoryRequest,
} as const;
export type MemoryModelName = keyof typeof MEMORY_MODELS;

/**
 * Fields the reference types with an Enum class (its error type is `enum`), not a Literal
 * (`literal_error`): kept so problem codes match what tools written for it expect.
 */
const ENUM_FIELDS: Partial<Record<MemoryModelName, readonly string[]>> = {
  DecisionStream: ["/phase", "/vitality", "/scope"],
  ProposalContent: ["/status"],
  MemoryEvent: ["/context/status"],
};

/**
 * Validates `input` against a memory model and returns the parsed value or every problem, each
 * with a JSON Pointer path and Pydantic's error type as its code (`string_too_short`, `missing`,
 * `literal_error`, `enum`, `too_short`, `less_than_equal`, …). Never throws.
 *
 * @example
 * const result = validateMemoryModel("DecisionContent", { title: "T", target: "db", rationale: "…" });
 * if (!result.ok) console.log(result.problems[0]?.path); // "/target"
 */
export function validateMemoryModel<N extends MemoryModelName>(
  name: N,
  input: unknown,
): ValidationResult<z.output<(typeof MEMORY_MODELS)[N]>> {
  const schema = MEMORY_MODELS[name] as z.ZodType;
  const parsed = schema.safeParse(input);
  if (parsed.success) {
    return { ok: true, value: parsed.data as z.output<(typeof MEMORY_MODELS)[N]>, problems: [] };
  }
  return { ok: false, problems: memoryProblems(name, parsed.error.issues, input) };
}

/** zod issues as problems, with the reference's error types. */
export function memoryProblems(
  name: MemoryModelName | null,
  issues: readonly z.core.$ZodIssue[],
  input: unknown,
): ValidationProblem[] {
  const enums = name ? (ENUM_FIELDS[name] ?? []) : [];
  return problemsFromZodIssues(issues, input).map((problem) => {
    if (problem.code === "array_too_short") return { ...problem, code: "too_short" };
    if (problem.code === "literal_error" && enums.includes(problem.path)) {
      return { ...problem, code: "enum" };
    }
    return problem;
  });
}
