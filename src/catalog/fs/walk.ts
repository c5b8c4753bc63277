import { type Dirent, readdirSync, realpathSync, statSync } from "node:fs";
import { sep } from "node:path";
import type { IgnoreFilter } from "./ignore-filter.js";

/** A file the walk found. */
export interface WalkedFile {
  /** POSIX path relative to the scope root. */
  readonly path: string;
  readonly absolutePath: string;
}

/** A path the walk could not enter or follow, and why. */
export interface WalkProblem {
  readonly path: string;
  readonly reason: "symlink-loop" | "permission-denied" | "io-error";
  readonly message: string;
}

export interface WalkResult {
  readonly files: WalkedFile[];
  readonly problems: WalkProblem[];
}

/**
 * Lists every file under `root` the filter keeps, in no particular order. Symbolic links
 * are skipped unless `followSymlinks`; when followed, a directory reached twice (a loop, or two
 * links to one place) is entered once and the repeat reported. `starts` are the folders walked
 * (normal POSIX paths relative to `root`, "" for root itself); a file under two of them is
 * listed once.
 */
export function walkFiles(
  root: string,
  filter: IgnoreFilter,
  followSymlinks: boolean,
  starts: readonly string[] = [""],
): WalkResult {
  const files: WalkedFile[] = [];
  const problems: WalkProblem[] = [];
  const visited = new Set<string>();
  const enter = (absolute: string, relative: string) => {
    if (followSymlinks) {
      let real: string;
      try {
        real = realpathSync(absolute);
      } catch (error) {
        problems.push(problem(relative, error));
        return;
      }
      if (visited.has(real)) {
        problems.push({
          path: relative,
          reason: "symlink-loop",
          message: `${relative || "."} leads back to a folder already scanned (a symbolic-link loop); it was scanned once`,
        });
        return;
      }
      visited.add(real);
    }
    let entries: Dirent[];
    try {
      entries = readdirSync(absolute, { withFileTypes: true });
    } catch (error) {
      problems.push(problem(relative, error));
      return;
    }
    // No sorting here: callers order what they keep (nodes by path, links by compareLinks).
    for (const entry of entries) {
      const childRelative = relative === "" ? entry.name : `${relative}/${entry.name}`;
      // Concatenation, not path.join: the parts are already normal, and join's normalising
      // is a measurable share of walking 10,000 files.
      const childAbsolute = absolute.endsWith(sep)
        ? `${absolute}${entry.name}`
        : `${absolute}${sep}${entry.name}`;
      let isDirectory = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        if (!followSymlinks) continue;
        try {
          const target = statSync(childAbsolute);
          isDirectory = target.isDirectory();
          isFile = target.isFile();
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === "ELOOP") {
            problems.push({
              path: childRelative,
              reason: "symlink-loop",
              message: `${childRelative} is a symbolic link that points to itself (a loop)`,
            });
          }
          // A dangling link is not a file of the tree; nothing to report.
          continue;
        }
      }
      if (isDirectory) {
        if (!filter.ignores(`${childRelative}/`)) enter(childAbsolute, childRelative);
      } else if (isFile && !filter.ignores(childRelative)) {
        files.push({ path: childRelative, absolutePath: childAbsolute });
      }
    }
  };
  if (starts.length === 1 && starts[0] === "") {
    enter(root, "");
    return { files, problems };
  }
  for (const start of starts) enter(start === "" ? root : `${root}${sep}${start}`, start);
  const seen = new Set<string>();
  return {
    files: files.filter((file) => !seen.has(file.path) && seen.add(file.path) !== undefined),
    problems,
  };
}

function problem(path: string, error: unknown): WalkProblem {
  const code = (error as NodeJS.ErrnoException).code;
  return {
    path,
    reason: code === "EACCES" || code === "EPERM" ? "permission-denied" : "io-error",
    message: `${path || "."} could not be read: ${(error as Error).message}`,
  };
}
