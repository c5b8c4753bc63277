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
  /** Each foreign key: its columns, the table it references and that table's columns. */
  readonly foreignKeys: readonly ForeignKeySnapshot[];
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
  /** The default expression as the engine keeps it (`0`, `'[]'`; Postgres adds casts), or null. */
  readonly defaultValue: string | null;
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
  /** A CHECK's expression as the engine keeps it (null for other kinds). */
  readonly definition: string | null;
}

export interface ForeignKeySnapshot {
  readonly columns: readonly string[];
  readonly table: string;
  readonly referencedColumns: readonly string[];
}

/**
 * One schema object as text, with the tables it belongs to or touches: a table with its
 * columns, an index, a trigger, a constraint, an inheritance link, a rule, a comment. Two reads
 * compare line by line; a plugin migration may change only objects all of whose tables it owns.
 */
export interface SchemaObject {
  readonly tables: readonly string[];
  readonly text: string;
}
