import { canonicalJson, KeelError, sha256Hex } from "../../core/index.js";
import type { ArtifactKind, ArtifactsTable, RuntimeDb } from "../db/tables.js";

/** A stored payload's identity: its id and the sha256 of its canonical JSON. */
export interface ArtifactRef {
  id: string;
  contentHash: string;
}

/** What `putArtifact` needs. */
export interface PutArtifactOptions {
  id: string;
  kind: ArtifactKind;
  body: unknown;
  now: number;
}

/**
 * Stores a JSON payload in `state_artifacts` and returns its id and content hash. Payloads are
 * referenced by id from the ledger and the audit log, never inlined in them.
 */
export async function putArtifact(
  db: RuntimeDb,
  options: PutArtifactOptions,
): Promise<ArtifactRef> {
  const row = artifactRow(options);
  await db.insertInto("state_artifacts").values(row).execute();
  return { id: row.id, contentHash: row.content_hash };
}

/**
 * The `state_artifacts` row for a payload, for writers that insert it themselves (the ledger's
 * native paths).
 */
export function artifactRow(options: PutArtifactOptions): ArtifactsTable {
  const body = canonicalJson(options.body ?? null);
  return {
    id: options.id,
    kind: options.kind,
    content_hash: sha256Hex(body),
    body_json: body,
    byte_count: Buffer.byteLength(body),
    created_at: options.now,
  };
}

/** The columns of `state_artifacts`, in the order `artifactValues` gives them. */
export const ARTIFACT_COLUMNS = "id, kind, content_hash, body_json, byte_count, created_at";

export function artifactValues(row: ArtifactsTable): (string | number)[] {
  return [row.id, row.kind, row.content_hash, row.body_json, row.byte_count, row.created_at];
}

/**
 * Reads a payload back, checking it against its stored hash so that a corrupted or edited
 * artifact is never returned as if it were the recorded one.
 */
export async function getArtifact(db: RuntimeDb, id: string): Promise<unknown> {
  const row = await db
    .selectFrom("state_artifacts")
    .select(["body_json", "content_hash"])
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row) {
    throw new KeelError("NOT_FOUND", `No artifact "${id}".`, {
      details: { id },
      hint: "The artifact store and the ledger disagree; run `keel doctor`.",
    });
  }
  if (sha256Hex(row.body_json) !== row.content_hash) {
    throw new KeelError("STORE_CORRUPT", `Artifact "${id}" does not match its recorded hash.`, {
      details: { id },
      hint: "Restore the database from a backup; the recorded payload was altered.",
    });
  }
  return JSON.parse(row.body_json);
}
