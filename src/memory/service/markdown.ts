import { mkdir, writeFile } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";
import { KeelError, sha256Hex } from "../../core/index.js";
import type { MemoryRecord } from "../store/record-shape.js";
import type { MemoryContext } from "./context.js";
import { loadRecords } from "./rows.js";

/**
 * A namespace as one safe directory name: anything but letters, digits, `.`, `_` and `-`
 * becomes `_`, a leading dot is prefixed, and a changed name gets a short hash of the original
 * so that two namespaces never share a directory. `../../etc` → `ns_.._.._etc-<hash>`.
 */
export function namespaceDirectory(namespace: string): string {
  let safe = namespace.replace(/[^A-Za-z0-9._-]/g, "_");
  if (safe === "" || safe.startsWith(".")) safe = `ns_${safe}`;
  return safe === namespace ? safe : `${safe}-${sha256Hex(namespace).slice(0, 8)}`;
}

/** YAML front-matter: every value written as JSON, which YAML 1.2 reads as is. */
function frontMatter(fields: Record<string, unknown>): string {
  return `---\n${Object.entries(fields)
    .map(([key, value]) => `${key}: ${JSON.stringify(value)}`)
    .join("\n")}\n---\n`;
}

function markdownOf(record: MemoryRecord): string {
  const list = (title: string, value: unknown) =>
    Array.isArray(value) && value.length > 0
      ? `\n## ${title}\n\n${value.map((item) => `- ${String(item)}`).join("\n")}\n`
      : "";
  return (
    frontMatter({
      id: record.id,
      kind: record.kind,
      status: record.status,
      namespace: record.namespace,
      target: record.target,
      source: record.source,
      superseded_by: record.superseded_by,
      supersedes: record.supersedes,
      phase: record.phase,
      vitality: record.vitality,
      confidence: record.confidence,
      keywords: record.keywords,
      created_at: record.created_at,
      updated_at: record.updated_at,
    }) +
    `\n# ${record.title}\n\n${record.rationale}\n` +
    (record.content !== record.title ? `\n## Content\n\n${record.content}\n` : "") +
    list("Consequences", record.context.consequences) +
    list("Strengths", record.context.strengths) +
    list("Objections", record.context.objections)
  );
}

/**
 * Writes one markdown file per record, `<dir>/<namespace>/<kind>/<id>.md`, with YAML
 * front-matter, for review in git. Namespaces become safe directory names, so no record is
 * written outside `dir`. Returns the paths written, relative to `dir`.
 */
export async function exportMarkdown(ctx: MemoryContext, dir: string): Promise<string[]> {
  const root = resolve(dir);
  const ids = (
    await ctx.db.selectFrom("state_memory_records").select("id").orderBy("seq").execute()
  ).map((r) => r.id);
  const written: string[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    for (const record of await loadRecords(ctx.db, ids.slice(i, i + 500))) {
      const folder = join(root, namespaceDirectory(record.namespace), record.kind);
      const file = join(folder, `${namespaceDirectory(record.id)}.md`);
      if (!file.startsWith(root + sep)) {
        throw new KeelError("INTERNAL", `Refusing to write ${file} outside ${root}.`);
      }
      await mkdir(folder, { recursive: true });
      await writeFile(file, markdownOf(record), "utf8");
      written.push(relative(root, file));
    }
  }
  return written;
}
