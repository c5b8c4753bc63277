import { sha256Hex } from "../../core/index.js";
import type { SplitFile } from "../frontmatter/split.js";
import type { CatalogNode, NodeKind, Stability } from "../model.js";

const text = (value: unknown): string | null =>
  typeof value === "string" && value.length > 0 ? value : null;

const STABILITIES: readonly Stability[] = ["experimental", "stable", "deprecated"];

// The spec's fallback title: the file name without its extension (`notes/plain.md` → `plain`).
function fileTitle(path: string): string | null {
  const name = path.slice(path.lastIndexOf("/") + 1).replace(/\.[^.]*$/, "");
  return name.length > 0 ? name : null;
}

/**
 * A node from a split file: hashes (sha256 of the body after the block, and of the raw block),
 * byte sizes, and the denormalised fields (title from `name`, else the file name; version and stability from
 * `metadata`). Link counts start at zero; tokens are added by the caller when tokenizing.
 */
export function buildNode(
  path: string,
  kind: NodeKind,
  adapter: string,
  file: SplitFile,
): CatalogNode {
  const metadata = file.frontmatter.metadata;
  const meta =
    metadata !== null && typeof metadata === "object" && !Array.isArray(metadata)
      ? (metadata as Record<string, unknown>)
      : {};
  const bytesFrontmatter = Buffer.byteLength(file.frontmatterRaw, "utf8");
  const bytesBody = Buffer.byteLength(file.body, "utf8");
  const stability = STABILITIES.find((s) => s === meta.stability) ?? null;
  return {
    path,
    kind,
    adapter,
    title: text(file.frontmatter.name) ?? fileTitle(path),
    description: text(file.frontmatter.description),
    stability,
    version: text(meta.version),
    author: text(file.frontmatter.author),
    frontmatter: file.frontmatter,
    bodyHash: sha256Hex(file.body),
    frontmatterHash: sha256Hex(file.frontmatterRaw),
    bytes: { frontmatter: bytesFrontmatter, body: bytesBody, total: bytesFrontmatter + bytesBody },
    linksOutCount: 0,
    linksInCount: 0,
    externalRefsCount: 0,
  };
}
