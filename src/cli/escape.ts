/** C0 controls, DEL and C1 controls: what a terminal may act on rather than show. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point.
const CONTROLS = /[\u0000-\u001f\u007f-\u009f]/g;

/** The SGR sequences the CLI's own colours are made of (`\x1b[1m`, `\x1b[22m`, …). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts the sequence matched.
const SGR = /\u001b\[\d{1,3}m/y;

/**
 * Escapes control characters for a terminal (`\x1b` → `\x1b` as text, a tab inside an id → `\t`),
 * so an id or a message carrying them (`keel run --thread $'\e]0;…'`) is printed, not obeyed.
 * `keep` lists the controls the text may use as layout (`\n` between lines); with `colours`, the
 * CLI's own SGR colour sequences pass too.
 *
 * @example
 * escapeControls("run\u001b[2J", { keep: "\n" }) // "run\\x1b[2J"
 */
export function escapeControls(
  text: string,
  options: { keep?: string; colours?: boolean } = {},
): string {
  const keep = options.keep ?? "";
  return text.replace(CONTROLS, (char, offset: number) => {
    if (keep.includes(char)) return char;
    if (options.colours && char === "\u001b") {
      SGR.lastIndex = offset;
      if (SGR.test(text)) return char;
    }
    return named(char);
  });
}

function named(char: string): string {
  switch (char) {
    case "\n":
      return "\\n";
    case "\t":
      return "\\t";
    case "\r":
      return "\\r";
    default:
      return `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`;
  }
}
