import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { IRDocument } from "../models/index.js";
import type { Problem } from "../problems.js";
import { checkPackCompat } from "../version.js";

/** A governance pack's CLIPS source and the version it declares. */
export interface PackSource {
  source: string;
  version?: string;
}

/**
 * Loads the packs a document mounts from `.clp` files in `dir`: `<dir>/<pack id>.clp`. A first
 * line comment `; version: 1.2.0` declares the pack's version (checked against the mount's pin).
 * Missing files are left out, so compiling reports them as `unknown_pack` problems.
 *
 * @example
 * const packs = await loadPackFiles(doc, "examples/packs");
 */
export async function loadPackFiles(
  doc: IRDocument,
  dir: string,
): Promise<Record<string, PackSource>> {
  const packs: Record<string, PackSource> = {};
  for (const mount of doc.governance) {
    let source: string;
    try {
      source = await readFile(join(dir, `${mount.id}.clp`), "utf8");
    } catch {
      continue;
    }
    const version = /^;\s*version:\s*(\S+)/.exec(source)?.[1];
    packs[mount.id] = version === undefined ? { source } : { source, version };
  }
  return packs;
}

/**
 * Mounts a document's governance packs from `packs` (by id): each must be available, match the
 * mount's pinned version and pass the compatibility gate; failures are added to `problems`.
 * Returns the CLIPS sources to load, in mount order.
 */
export function mountPacks(
  doc: IRDocument,
  packs: Record<string, { source: string; version?: string }>,
  problems: Problem[],
): string[] {
  const sources: string[] = [];
  doc.governance.forEach((mount, index) => {
    const pack = packs[mount.id];
    const path = `/governance/${index}`;
    if (!pack) {
      problems.push({
        code: "unknown_pack",
        path: `${path}/id`,
        message: `Pack "${mount.id}" is not available.`,
        expected: Object.keys(packs).join(" | ") || "a registered pack",
        actual: JSON.stringify(mount.id),
        hint: "Pass the pack's CLIPS source in `packs`, or remove the mount.",
      });
      return;
    }
    if (mount.version !== null && pack.version !== undefined && mount.version !== pack.version) {
      problems.push({
        code: "pack_version_mismatch",
        path: `${path}/version`,
        message: `Pack "${mount.id}" is version ${pack.version}; the document pins ${mount.version}.`,
        expected: mount.version,
        actual: JSON.stringify(pack.version),
        hint: "Mount the pinned version, or change the pin.",
      });
      return;
    }
    try {
      checkPackCompat(mount);
    } catch (error) {
      problems.push({
        code: "pack_incompatible",
        path: `${path}/requires`,
        message: (error as Error).message,
        expected: "requirements this build meets",
        actual: JSON.stringify(mount.requires),
        hint: "Mount a pack written for this Keel.",
      });
      return;
    }
    sources.push(pack.source);
  });
  return sources;
}
