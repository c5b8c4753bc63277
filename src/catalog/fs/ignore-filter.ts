import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ignore from "ignore";

/** Folders and files never worth scanning, gitignore syntax (the user's files add to these). */
export const DEFAULT_IGNORES: readonly string[] = [
  ".git/",
  "node_modules/",
  ".keel/",
  ".skill-map/",
  "dist/",
  "build/",
  "out/",
  ".next/",
  ".cache/",
  ".tmp/",
  ".DS_Store",
  "Thumbs.db",
  "*.swp",
  "*~",
  "*.log",
];

/** The ignore files read from the scope root, in order. */
export const IGNORE_FILES: readonly string[] = [".skill-mapignore", ".keelignore"];

/** Decides which scope-relative POSIX paths the walk skips. */
export interface IgnoreFilter {
  /** `path` is relative, POSIX; a directory is passed with a trailing `/`. */
  ignores(path: string): boolean;
}

/**
 * The bundled defaults, then the config's `ignore` patterns, then `.skill-mapignore` and
 * `.keelignore` at `root` (gitignore syntax, through the `ignore` package).
 */
export function buildIgnoreFilter(
  root: string,
  configPatterns: readonly string[] = [],
): IgnoreFilter {
  const matcher = ignore()
    .add([...DEFAULT_IGNORES])
    .add([...configPatterns]);
  for (const name of IGNORE_FILES) {
    const file = join(root, name);
    if (existsSync(file)) matcher.add(readFileSync(file, "utf8"));
  }
  return { ignores: (path) => path !== "" && matcher.ignores(path) };
}
