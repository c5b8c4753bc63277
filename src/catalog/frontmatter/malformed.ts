/**
 * When a file has no usable frontmatter block, guesses whether its author meant one: a byte-order
 * mark before the fence, an indented fence (a paste that kept its indentation), or an opening
 * fence with no closing one. Returns the hint, or null for a file that simply has none (a
 * horizontal rule followed by prose is not a block).
 */
export function malformedHint(text: string): MalformedHint | null {
  if (text.startsWith("\uFEFF") && /^\uFEFF---\r?\n[\s\S]*?[A-Za-z0-9_-]+\s*:/.test(text)) {
    return "byte-order-mark";
  }
  if (/^[ \t]+---\r?\n[ \t]*[A-Za-z0-9_-]+\s*:/.test(text)) return "paste-with-indent";
  if (/^---\r?\n[ \t]*[A-Za-z0-9_-]+\s*:/.test(text) && !/\r?\n---(?:\r?\n|$)/.test(text)) {
    return "missing-close";
  }
  return null;
}

export type MalformedHint = "byte-order-mark" | "paste-with-indent" | "missing-close";

/** What to tell the author for each hint. */
export const MALFORMED_MESSAGES: Record<MalformedHint | "yaml-syntax" | "not-a-mapping", string> = {
  "byte-order-mark":
    "starts with a byte-order mark before its frontmatter fence, so the block is read as body; save the file as UTF-8 without BOM",
  "paste-with-indent":
    "has an indented `---` frontmatter fence, so the block is read as body; move the fences and keys to column 0",
  "missing-close":
    "opens a frontmatter block with `---` but never closes it, so the block is read as body; add a closing `---` line",
  "yaml-syntax": "has a frontmatter block that is not valid YAML",
  "not-a-mapping": "has a frontmatter block that is not a mapping of keys to values",
};
