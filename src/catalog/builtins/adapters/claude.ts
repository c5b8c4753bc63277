import type { Adapter } from "../../extensions.js";
import type { NodeKind } from "../../model.js";

const FOLDERS: readonly [string, NodeKind][] = [
  [".claude/agents/", "agent"],
  [".claude/commands/", "command"],
  [".claude/hooks/", "hook"],
  [".claude/skills/", "skill"],
];

/**
 * Claude Code's layout: `.claude/agents|commands|hooks|skills/**` are agents, commands, hooks
 * and skills; any other `.md` file is a note. Files not ending in `.md` are not nodes.
 */
export const claudeAdapter: Adapter = {
  kind: "adapter",
  id: "claude",
  version: "1.0.0",
  description:
    "Claude Code: .claude/{agents,commands,hooks,skills}/**.md by folder, any other .md a note.",
  classify(path) {
    if (!path.endsWith(".md")) return null;
    const lower = path.toLowerCase();
    for (const [prefix, kind] of FOLDERS) if (lower.startsWith(prefix)) return kind;
    return "note";
  },
};
