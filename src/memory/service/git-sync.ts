import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { KeelError } from "../../core/index.js";
import type { MemoryContext } from "./context.js";
import { recordEvent } from "./writes.js";

const run = promisify(execFile);

/**
 * Imports a repository's most recent commits (1–100) as `commit_change` events: `git log` runs
 * as a child process and only reads. Commits already imported are skipped (identical events
 * are not stored twice). Returns how many were new.
 *
 * @example
 * await memory.syncGit({ repoPath: ".", limit: 20 }) // { indexedCommits: 3 }
 */
export async function syncGit(
  ctx: MemoryContext,
  options: { repoPath: string; limit: number; namespace?: string },
  newId: () => string,
): Promise<{ indexedCommits: number }> {
  const repo = resolve(options.repoPath);
  let stdout: string;
  try {
    ({ stdout } = await run(
      "git",
      [
        "-C",
        repo,
        "log",
        `-n${options.limit}`,
        "--no-color",
        "--format=%H%x1f%an%x1f%aI%x1f%s%x1f%B%x1e",
      ],
      {
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0" },
      },
    ));
  } catch (cause) {
    throw new KeelError(
      "MEMORY_GIT_FAILED",
      `git log failed in ${repo}: ${String((cause as { stderr?: string }).stderr ?? (cause as Error).message).trim()}`,
      {
        cause,
        details: { repo },
        hint: "Point --repo at a git working tree with at least one commit.",
      },
    );
  }
  let indexed = 0;
  const commits = stdout
    .split("\x1e")
    .map((chunk) => chunk.replace(/^\n/, ""))
    .filter((chunk) => chunk.trim() !== "");
  for (const commit of commits.reverse()) {
    const [hash = "", author = "", date = "", subject = "", body = ""] = commit.split("\x1f");
    const result = await recordEvent(
      ctx,
      {
        source: "system",
        kind: "commit_change",
        content: subject.trim() || hash,
        context: { hash, author, full_message: body.trim(), repo },
        timestamp: date,
        namespace: options.namespace,
      },
      newId,
    );
    if (!result.duplicate) indexed++;
  }
  return { indexedCommits: indexed };
}
