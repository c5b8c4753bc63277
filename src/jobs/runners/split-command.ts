import { KeelError } from "../../core/index.js";

/**
 * Splits a command line into words the way a POSIX shell does for plain words and '…' / "…"
 * quotes (no expansion, no pipes): the runner spawns without a shell, so the configured command
 * never gets shell interpretation.
 */
export function splitCommand(command: string): string[] {
  const words: string[] = [];
  let current = "";
  let inWord = false;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i] as string;
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === "\\" && quote === '"' && i + 1 < command.length) current += command[++i];
      else current += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      inWord = true;
    } else if (ch === "\\" && i + 1 < command.length) {
      current += command[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(current);
      current = "";
      inWord = false;
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (quote)
    throw new KeelError(
      "INVALID_ARGUMENT",
      `The runner command has an unclosed ${quote}: ${command}`,
    );
  if (inWord) words.push(current);
  if (words.length === 0)
    throw new KeelError("INVALID_ARGUMENT", "The runner command is empty.", {
      hint: "Set jobs.runner.command or pass --command.",
    });
  return words;
}
