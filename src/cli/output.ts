import { toKeelError } from "../core/index.js";
import { colourful, pc } from "./colors.js";
import { escapeControls } from "./escape.js";

/** Options every verb understands. */
export interface OutputOptions {
  json?: boolean;
  quiet?: boolean;
}

/** Prints a verb's result: JSON under `--json`, otherwise the human rendering. */
export function printResult(options: OutputOptions, data: unknown, human: () => string): void {
  if (options.json) {
    process.stdout.write(`${JSON.stringify(data)}\n`);
    return;
  }
  if (options.quiet) return;
  // Ids and messages come from users: their control characters are shown, never obeyed.
  const text = escapeControls(human(), { keep: "\n", colours: colourful() });
  if (text) process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
}

/** Progress for people, on stderr; silent under `--json` and `-q`. */
export function progress(options: OutputOptions, message: string): void {
  if (options.json || options.quiet) return;
  process.stderr.write(`${pc.dim(message)}\n`);
}

/**
 * Reports a failure and sets the exit code from its error code. Under `--json` the error is
 * `{"ok":false,"error":{"code","message","details"}}` on stdout.
 */
export function reportError(options: OutputOptions, thrown: unknown): void {
  const error = toKeelError(thrown);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(error.toJSON())}\n`);
  } else {
    const message = escapeControls(error.message, { keep: "\n" });
    process.stderr.write(`${pc.red("error")} ${pc.dim(`[${error.code}]`)} ${message}\n`);
  }
  process.exitCode = error.exitCode;
}

/** Renders rows as an aligned table with a header. */
export function table(headers: readonly string[], given: readonly (readonly string[])[]): string {
  // A cell is one line: a line break or tab inside an id would break the columns.
  const colours = colourful();
  const rows = given.map((row) => row.map((cell) => escapeControls(cell, { colours })));
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join("  ")
      .trimEnd();
  return [pc.bold(line(headers)), ...rows.map(line)].join("\n");
}
