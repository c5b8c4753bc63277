import { parse as parseYaml } from "yaml";
import { parseSimpleYaml } from "./simple-yaml.js";

/** A file's text cut into its frontmatter block and body, with the block parsed. */
export interface SplitFile {
  /** The text between the fences (without them); empty when the file has no block. */
  readonly frontmatterRaw: string;
  /** The parsed block; `{}` when absent or unusable. */
  readonly frontmatter: Record<string, unknown>;
  /** Everything after the closing fence's line (the whole text without a block). */
  readonly body: string;
  /** Why a fenced block could not be used (YAML error, not a mapping); absent when it parsed. */
  readonly parseError?: { hint: "yaml-syntax" | "not-a-mapping"; message: string };
}

// A block opens with `---` on the very first line and closes with `---` at column 0.
const FENCED = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/;
// A block whose opening fence is directly followed by the closing one.
const EMPTY_FENCED = /^---\r?\n---(?:\r?\n|$)/;

/**
 * Splits a markdown file's text. YAML is parsed with the `yaml` package; a block that does not
 * parse (or is not a mapping) leaves `frontmatter` empty and says why in `parseError`, so one bad
 * file is an issue, never a failed scan.
 *
 * @example
 * splitFrontmatter("---\nname: x\n---\nbody").frontmatter; // { name: "x" }
 */
export function splitFrontmatter(text: string): SplitFile {
  const empty = EMPTY_FENCED.exec(text);
  if (empty) return { frontmatterRaw: "", frontmatter: {}, body: text.slice(empty[0].length) };
  const match = FENCED.exec(text);
  if (!match) return { frontmatterRaw: "", frontmatter: {}, body: text };
  const frontmatterRaw = match[1] ?? "";
  const body = text.slice(match[0].length);
  const simple = parseSimpleYaml(frontmatterRaw);
  if (simple !== undefined) return { frontmatterRaw, frontmatter: simple, body };
  try {
    // uniqueKeys off: a repeated key keeps its last value, as most YAML readers do.
    const parsed: unknown = parseYaml(frontmatterRaw, { uniqueKeys: false, maxAliasCount: 100 });
    if (parsed === null || parsed === undefined) {
      return { frontmatterRaw, frontmatter: {}, body };
    }
    if (typeof parsed !== "object" || Array.isArray(parsed)) {
      return {
        frontmatterRaw,
        frontmatter: {},
        body,
        parseError: {
          hint: "not-a-mapping",
          message: `the frontmatter block is a ${Array.isArray(parsed) ? "list" : typeof parsed}, not a mapping of keys to values`,
        },
      };
    }
    return { frontmatterRaw, frontmatter: toPlainJson(parsed) as Record<string, unknown>, body };
  } catch (error) {
    const message = (error as Error).message.split("\n")[0] ?? "YAML syntax error";
    return {
      frontmatterRaw,
      frontmatter: {},
      body,
      parseError: { hint: "yaml-syntax", message },
    };
  }
}

// YAML dates and other non-JSON values become their JSON form, so what is stored and printed is
// exactly what `JSON.stringify` round-trips.
function toPlainJson(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (_key, v: unknown) => (typeof v === "bigint" ? Number(v) : v)),
  );
}
