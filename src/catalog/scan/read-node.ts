import type { Detector, FrontmatterDiagnostic } from "../extensions.js";
import { malformedHint } from "../frontmatter/malformed.js";
import { type SplitFile, splitFrontmatter } from "../frontmatter/split.js";
import { validateFrontmatter } from "../frontmatter/validate.js";
import { type FileStamp, readTextFile } from "../fs/read-file.js";
import type { CatalogIssue, CatalogLink, CatalogNode } from "../model.js";
import { buildNode } from "./build-node.js";
import { isExternal } from "./links.js";
import type { ClaimedFile } from "./listing.js";

/**
 * A file modified this close to the moment it is read may change again within the same clock
 * tick after the read (git's "racily clean" case). Its stamp is stored smudged (size -1), so the
 * next `--changed` scan reads it again instead of trusting it.
 */
const RACY_MS = 2000;

export function smudgeIfRacy(stamp: FileStamp, readAt: number): FileStamp {
  return stamp.modifiedAt >= readAt - RACY_MS ? { modifiedAt: stamp.modifiedAt, size: -1 } : stamp;
}

/** A claimed file read into a node, or the kernel's issue for a file that cannot be used. */
export type ReadNode =
  | { readonly ok: false; readonly issue: CatalogIssue; readonly stamp: FileStamp | null }
  | {
      readonly ok: true;
      readonly node: CatalogNode;
      readonly split: SplitFile;
      readonly text: string;
      readonly stamp: FileStamp;
    };

/** Reads, splits and hashes one claimed file (stamps taken within RACY_MS are smudged). */
export function readNode(file: ClaimedFile, maxFileBytes: number, readAt: number): ReadNode {
  const read = readTextFile(file.absolutePath, maxFileBytes);
  if (!read.ok) {
    return {
      ok: false,
      issue: unreadable(file.path, read.reason, read.message),
      stamp: read.stamp ? smudgeIfRacy(read.stamp, readAt) : null,
    };
  }
  const split = splitFrontmatter(read.text);
  const node = buildNode(file.path, file.kind, file.adapter, split);
  const stamp = smudgeIfRacy({ modifiedAt: read.modifiedAt, size: read.size }, readAt);
  return { ok: true, node, split, text: read.text, stamp };
}

/** What the frontmatter rules report about a freshly read node (null: nothing). */
export function diagnoseFrontmatter(
  node: CatalogNode,
  split: SplitFile,
  text: string,
): FrontmatterDiagnostic | null {
  if (split.parseError) return { malformed: split.parseError };
  if (split.frontmatterRaw.length > 0) {
    const invalid = validateFrontmatter(node.kind, split.frontmatter);
    return invalid.length > 0 ? { invalid } : null;
  }
  const hint = malformedHint(text);
  return hint ? { malformed: { hint, message: "" } } : null;
}

/**
 * A detector's links: external ones counted into `external` (for the node that emitted them),
 * the rest checked against what it declared and appended to `links`.
 */
export function collect(
  detector: Detector,
  emitted: CatalogLink[],
  node: CatalogNode,
  links: CatalogLink[],
  external: Map<string, number>,
  diagnostic: (message: string) => void,
): void {
  for (const link of emitted) {
    if (!detector.emitsLinkKinds.includes(link.kind)) {
      diagnostic(
        `detector ${detector.id} emitted a ${link.kind} link it does not declare (${link.source} → ${link.target}); dropped`,
      );
      continue;
    }
    if (isExternal(link)) {
      if (link.source === node.path) external.set(node.path, (external.get(node.path) ?? 0) + 1);
      continue;
    }
    // Copied only when the detector left the confidence out (links are never changed in place).
    links.push(link.confidence ? link : { ...link, confidence: detector.defaultConfidence });
  }
}

/** Runs every detector over a freshly read node. */
export function detectNode(
  detectors: readonly Detector[],
  node: CatalogNode,
  split: SplitFile,
  links: CatalogLink[],
  external: Map<string, number>,
  diagnostic: (message: string) => void,
): void {
  for (const detector of detectors) {
    const context = {
      node,
      body: detector.scope === "frontmatter" ? "" : split.body,
      frontmatter: detector.scope === "body" ? {} : split.frontmatter,
    };
    collect(detector, detector.detect(context), node, links, external, diagnostic);
  }
}

/** The kernel's issue for a file or folder the scan could not read. */
export function unreadable(path: string, reason: string, message: string): CatalogIssue {
  return {
    ruleId: "unreadable-file",
    severity: "warn",
    nodeIds: [path],
    message: `${path} ${message}.`,
    data: { reason },
  };
}
