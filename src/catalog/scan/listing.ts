import { existsSync } from "node:fs";
import { join, posix } from "node:path";
import { compareCodePoints, KeelError } from "../../core/index.js";
import { buildIgnoreFilter } from "../fs/ignore-filter.js";
import { type WalkProblem, walkFiles } from "../fs/walk.js";
import { NODE_KINDS, type NodeKind } from "../model.js";
import type { ExtensionRegistry } from "../registry.js";

/** A walked file an adapter claims: it becomes a node if it can be read. */
export interface ClaimedFile {
  readonly path: string;
  readonly absolutePath: string;
  readonly kind: NodeKind;
  readonly adapter: string;
}

/** What a scan looks at: the claimed files, how many were walked and skipped, walk problems. */
export interface Listing {
  readonly files: readonly ClaimedFile[];
  readonly walked: number;
  /** Walked files no adapter claims. */
  readonly skipped: number;
  readonly problems: readonly WalkProblem[];
}

export interface ListingOptions {
  readonly ignore?: readonly string[];
  /** The config's `roots`: folders to walk, relative to the scope root (default: all of it). */
  readonly roots?: readonly string[];
  readonly followSymlinks?: boolean;
  readonly onDiagnostic?: (message: string) => void;
}

/** Walks the scope and asks the adapters (first claim wins) which files are nodes of which kind. */
export function listScope(
  root: string,
  registry: ExtensionRegistry,
  options: ListingOptions,
): Listing {
  const walk = walkFiles(
    root,
    buildIgnoreFilter(root, options.ignore ?? []),
    options.followSymlinks === true,
    walkStarts(options.roots),
  );
  return classify(
    walk.files.map((f) => f.path),
    root,
    registry,
    walk.problems,
    options.onDiagnostic,
  );
}

/**
 * The config's `roots` as normal POSIX paths relative to the scope root ("" for the root
 * itself). A root that is absolute or leaves the scope is refused: node paths are relative to
 * the scope root, and a file outside it has no such path.
 */
export function walkStarts(roots: readonly string[] | undefined): string[] {
  if (!roots || roots.length === 0) return [""];
  const starts = new Set<string>();
  for (const root of roots) {
    const normal = posix.normalize(root.replaceAll("\\", "/")).replace(/\/+$/, "");
    if (posix.isAbsolute(normal) || normal === ".." || normal.startsWith("../")) {
      throw new KeelError(
        "CATALOG_CONFIG_INVALID",
        `The config's roots include "${root}", which is outside the scope root.`,
        {
          hint: "List folders inside the scope (relative, like docs or .claude); scan another folder as its own scope.",
          details: { root },
        },
      );
    }
    starts.add(normal === "." ? "" : normal);
  }
  // A root inside another root adds nothing.
  const all = [...starts].sort(compareCodePoints);
  return all.filter(
    (start) =>
      !all.some((other) => other !== start && (other === "" || start.startsWith(`${other}/`))),
  );
}

/**
 * The listing of `-n <path>`: the prior scan's node paths plus `path`, without walking. A node
 * deleted since the prior scan leaves the graph; a path neither present nor known is an error.
 */
export function listForNode(
  root: string,
  registry: ExtensionRegistry,
  priorPaths: Iterable<string>,
  path: string,
  onDiagnostic?: (message: string) => void,
): Listing {
  const paths = new Set(priorPaths);
  if (existsSync(join(root, path))) paths.add(path);
  else if (paths.has(path)) paths.delete(path);
  else throw nodeNotFound(path, root);
  return classify([...paths].sort(compareCodePoints), root, registry, [], onDiagnostic);
}

function classify(
  paths: readonly string[],
  root: string,
  registry: ExtensionRegistry,
  problems: readonly WalkProblem[],
  onDiagnostic: ((message: string) => void) | undefined,
): Listing {
  const adapters = registry.adapters();
  const files: ClaimedFile[] = [];
  let skipped = 0;
  const base = root.endsWith("/") ? root : `${root}/`;
  for (const path of paths) {
    let kind: string | null = null;
    let adapter = "";
    for (const candidate of adapters) {
      kind = candidate.classify(path);
      if (kind) {
        adapter = candidate.id;
        break;
      }
    }
    if (!kind) {
      skipped += 1;
      continue;
    }
    if (!(NODE_KINDS as readonly string[]).includes(kind)) {
      onDiagnostic?.(
        `adapter ${adapter} classified ${path} as "${kind}", which is not a node kind; skipped`,
      );
      skipped += 1;
      continue;
    }
    files.push({ path, absolutePath: `${base}${path}`, kind: kind as NodeKind, adapter });
  }
  return { files, walked: paths.length, skipped, problems };
}

export function nodeNotFound(path: string, root: string): KeelError {
  return new KeelError(
    "CATALOG_NODE_NOT_FOUND",
    `${path} is not a file any adapter claims under ${root}.`,
    {
      hint: "Give the node's path relative to the scope root (as `keel list` prints it).",
      details: { path },
    },
  );
}
