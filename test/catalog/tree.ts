import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** Writes `files` (path → text) under a fresh temporary folder and returns it. */
export function makeTree(files: Record<string, string | Buffer>, prefix = "keel-catalog-"): string {
  const root = mkdtempSync(join(tmpdir(), prefix));
  writeTree(root, files);
  return root;
}

export function writeTree(root: string, files: Record<string, string | Buffer>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

/** A markdown file with a valid frontmatter block. */
export function md(name: string, body: string, metadata: Record<string, unknown> = {}): string {
  const meta = Object.entries({ version: "1.0.0", ...metadata })
    .map(([k, v]) => `  ${k}: ${JSON.stringify(v)}`)
    .join("\n");
  return `---\nname: ${name}\ndescription: The ${name}\nmetadata:\n${meta}\n---\n${body}\n`;
}
