/** One migration file, `NNN_snake_case.sql`. */
export interface MigrationFile {
  readonly version: number;
  /** The file name without `.sql`, e.g. `001_kernel`. */
  readonly name: string;
  /** Words from the name, e.g. `kernel`, recorded in the ledger's `description`. */
  readonly description: string;
  readonly file: string;
  readonly sql: string;
}

/** One row of `config_schema_versions`. */
export interface LedgerEntry {
  readonly scope: "kernel" | "plugin";
  readonly ownerId: string;
  readonly version: number;
  readonly description: string;
  readonly appliedAt: number;
}

/** Where the kernel schema stands. */
export interface KernelMigrationStatus {
  /** Highest version recorded in the ledger (0 for a new database). */
  readonly current: number;
  /** `PRAGMA user_version` (or the Postgres equivalent); should equal `current`. */
  readonly userVersion: number;
  /** Highest version this code knows. */
  readonly latest: number;
  readonly applied: readonly LedgerEntry[];
  readonly pending: readonly { version: number; name: string }[];
}

/** What a plugin's storage came to after migrations. */
export interface PluginMigrationResult {
  readonly pluginId: string;
  /** `enabled` when every migration applied (or none was due). */
  readonly status: "enabled" | "load-error" | "invalid-manifest" | "incompatible-spec";
  readonly reason: string | null;
  readonly applied: readonly { version: number; name: string }[];
  readonly pending: readonly { version: number; name: string }[];
}

/** What one migrate pass did (or, under `dryRun`, would do). */
export interface MigrationReport {
  readonly dryRun: boolean;
  readonly kernel: {
    readonly from: number;
    readonly to: number;
    readonly applied: readonly { version: number; name: string }[];
    /** The pre-migrate backup written (SQLite), if any. */
    readonly backupPath: string | null;
  };
  readonly plugins: readonly PluginMigrationResult[];
}
