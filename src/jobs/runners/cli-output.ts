import type { ValidationProblem } from "../../runtime/index.js";
import { parseReportText } from "../report-file.js";

/** The report and metrics found in a CLI runner's stdout. */
export interface ParsedOutput {
  readonly report?: unknown;
  readonly problems: ValidationProblem[];
  readonly tokensIn?: number;
  readonly tokensOut?: number;
  readonly model?: string;
}

const FENCE = /```(?:json)?\s*\n([\s\S]*?)\n```/;

const int = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined;

/**
 * Reads a runner's stdout. `claude -p --output-format json` prints one envelope
 * (`{"type":"result","result":"<text>","usage":{…}}`): the report is the JSON in `result` (a
 * fenced block in it counts) and tokens come from `usage`. Any other JSON document is taken as
 * the report itself. Anything else is a problem (the job fails report-invalid).
 */
export function parseCliOutput(stdout: string): ParsedOutput {
  const outer = parseReportText(stdout.trim());
  if (!outer.ok) return { problems: [outer.problem] };
  const envelope = outer.report as Record<string, unknown> | null;
  if (
    envelope &&
    typeof envelope === "object" &&
    envelope.type === "result" &&
    typeof envelope.result === "string"
  ) {
    const usage = (envelope.usage ?? {}) as Record<string, unknown>;
    const modelUsage = envelope.modelUsage as Record<string, unknown> | undefined;
    const metrics = {
      tokensIn: int(usage.input_tokens),
      tokensOut: int(usage.output_tokens),
      model:
        typeof envelope.model === "string"
          ? envelope.model
          : modelUsage
            ? Object.keys(modelUsage)[0]
            : undefined,
    };
    if (envelope.is_error === true) {
      return {
        ...metrics,
        problems: [
          {
            code: "runner_error",
            path: "/",
            message: `The model run reported an error: ${envelope.result.slice(0, 200)}`,
            expected: "a result",
            actual: "is_error: true",
            hint: "Check the runner command's own output.",
          },
        ],
      };
    }
    const text = envelope.result.trim();
    const inner = parseReportText(FENCE.exec(text)?.[1] ?? text);
    return inner.ok
      ? { ...metrics, report: inner.report, problems: [] }
      : { ...metrics, problems: [inner.problem] };
  }
  return { report: outer.report, problems: [] };
}
