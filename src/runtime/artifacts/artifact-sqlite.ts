import { prepared, type SqliteHandle } from "../db/sqlite-native.js";
import type { ArtifactsTable } from "../db/tables.js";
import { ARTIFACT_COLUMNS, artifactValues } from "./artifact-store.js";

const INSERT = `INSERT INTO state_artifacts (${ARTIFACT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`;

/** Inserts an artifact row on SQLite's native connection (inside the caller's transaction). */
export function insertArtifactSqlite(db: SqliteHandle, row: ArtifactsTable): void {
  prepared(db, INSERT).run(...artifactValues(row));
}
