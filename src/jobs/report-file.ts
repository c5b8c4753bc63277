import { closeSync, openSync, readSync, statSync } from "node:fs";
import type { ValidationProblem } from "../runtime/index.js";

/** A report read from disk, or why it could not be. */
export type LoadedReport =
  | { ok: true; report: unknown }
  | { ok: false; problem: ValidationProblem };

function problem(message: string, actual: string, hint: string): LoadedReport {
  return {
    ok: false,
    problem: {
      code: "report_file",
      path: "/",
      message,
      expected: "a JSON report file",
      actual,
      hint,
    },
  };
}

/**
 * Reads a report file: missing, larger than `maxBytes` (checked before reading, so a 50 MB file
 * is never loaded) or not JSON each give a problem instead of an exception.
 */
export function loadReportFile(file: string, maxBytes: number): LoadedReport {
  let size: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile())
      return problem(
        `${file} is not a file.`,
        "a directory or device",
        "Pass the report's JSON file.",
      );
    size = stat.size;
  } catch {
    return problem(
      `The report file ${file} does not exist.`,
      "no file",
      "Write the report before calling record, and pass its path.",
    );
  }
  if (size > maxBytes) {
    return problem(
      `The report file ${file} is ${size} bytes; reports are capped at ${maxBytes} bytes.`,
      `${size} bytes`,
      "A report is a summary, not a dump; raise jobs.max_report_bytes only if it must be this large.",
    );
  }
  const buffer = Buffer.alloc(size);
  const fd = openSync(file, "r");
  try {
    readSync(fd, buffer, 0, size, 0);
  } finally {
    closeSync(fd);
  }
  return parseReportText(buffer.toString("utf8"));
}

/** Parses a report's text as JSON, or a problem saying it is not JSON. */
export function parseReportText(text: string): LoadedReport {
  try {
    return { ok: true, report: JSON.parse(text) };
  } catch (error) {
    return problem(
      `The report is not JSON: ${(error as Error).message}.`,
      text.length > 80 ? `${JSON.stringify(text.slice(0, 77))}...` : JSON.stringify(text),
      "The report must be one JSON object with `confidence` and `safety`.",
    );
  }
}
