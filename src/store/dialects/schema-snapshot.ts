/**
 * The live schema of a database, read from the engine's catalog, in one shape for both
 * dialects. The naming-rule check and `keel doctor` read it.
 */
export interface SchemaSnapshot {
  readonly tables: readonly TableSnapshot[];
}

export interface TableSnapshot {
  readonly name: string;
  readonly columns: readonly ColumnSnapshot[];
  /** Primary-key columns in key order. */
  readonly primaryKey: readonly string[];
  /** Explicitly created indexes (not the engine's automatic ones for keys). */
  readonly indexes: readonly IndexSnapshot[];
  /** Named constraints other than the primary key (CHECK, UNIQUE, FOREIGN KEY). */
  readonly constraints: readonly ConstraintSnapshot[];
  /** Tables this one references through foreign keys. */
  readonly references: readonly string[];
  /**
   * A trigger refuses DELETE (or TRUNCATE) on this table: it is append-only (the audit log).
   * Reset and restore never empty such a table.
   */
  readonly appendOnly: boolean;
}

export interface ColumnSnapshot {
  readonly name: string;
  /** The declared type, upper-cased (`INTEGER`, `TEXT`, `BIGINT`, `BOOLEAN`, `JSONB`…). */
  readonly type: string;
  readonly notNull: boolean;
}

export interface IndexSnapshot {
  readonly name: string;
  readonly unique: boolean;
  readonly partial: boolean;
  readonly columns: readonly string[];
}

export interface ConstraintSnapshot {
  /** The constraint's name, or null when the engine holds an unnamed one. */
  readonly name: string | null;
  readonly kind: "check" | "unique" | "foreign-key";
}
