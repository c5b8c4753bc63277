import { describe, expect, it } from "vitest";
import {
  checkScopedSql,
  normalizePluginId,
  PluginForbiddenSqlError,
  pluginTablePrefix,
  rewritePluginMigration,
  ScopedDbViolationError,
} from "../../src/store/index.js";

const ctx = {
  pluginId: "acme-notes",
  prefix: "plugin_acme_notes_",
  tables: new Set(["notes", "tags"]),
  file: "001_init.sql",
};
const scope = {
  pluginId: "acme-notes",
  prefix: "plugin_acme_notes_",
  tables: ctx.tables,
  dialect: "sqlite" as const,
};

function refusedRule(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof PluginForbiddenSqlError || error instanceof ScopedDbViolationError) {
      expect(error.message).toContain(`[rule: ${error.rule}]`);
      return error.rule;
    }
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("plugin ids", () => {
  it("normalises ids as the seed says", () => {
    expect(normalizePluginId("@skill-map/cluster-triggers")).toBe("skill_map_cluster_triggers");
    expect(normalizePluginId("__A--b__c__")).toBe("a_b_c");
    expect(pluginTablePrefix("@skill-map/cluster-triggers")).toBe(
      "plugin_skill_map_cluster_triggers_",
    );
  });
});

describe("plugin migrations: prefix injection", () => {
  it("prefixes tables, indexes, constraints and references to the plugin's own tables", () => {
    const sql = [
      "CREATE TABLE notes (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL,",
      "  kind TEXT CONSTRAINT ck_notes_kind CHECK (kind IN ('a', 'b')));",
      "CREATE TABLE IF NOT EXISTS tags (id TEXT PRIMARY KEY, note_id TEXT REFERENCES notes (id));",
      "CREATE INDEX ix_notes_created_at ON notes (created_at);",
      "CREATE UNIQUE INDEX tags_note ON tags (note_id);",
    ].join("\n");
    const out = rewritePluginMigration(sql, ctx);
    expect(out).toContain("CREATE TABLE plugin_acme_notes_notes (");
    expect(out).toContain("CONSTRAINT ck_plugin_acme_notes_notes_kind CHECK");
    expect(out).toContain("CREATE TABLE IF NOT EXISTS plugin_acme_notes_tags (");
    expect(out).toContain("REFERENCES plugin_acme_notes_notes (id)");
    expect(out).toContain(
      "CREATE INDEX ix_plugin_acme_notes_notes_created_at ON plugin_acme_notes_notes (created_at)",
    );
    expect(out).toContain(
      "CREATE UNIQUE INDEX ix_plugin_acme_notes_tags_note ON plugin_acme_notes_tags (note_id)",
    );
  });

  it("leaves string literals and comments alone", () => {
    const sql =
      "-- DROP TABLE state_jobs; ATTACH 'x'\nCREATE TABLE notes (body TEXT DEFAULT 'DROP TABLE state_jobs; PRAGMA x')";
    expect(rewritePluginMigration(sql, ctx)).toContain("DEFAULT 'DROP TABLE state_jobs; PRAGMA x'");
  });

  it("allows triggers on its own tables and prefixes them", () => {
    const sql =
      "CREATE TRIGGER tr_notes_touch AFTER UPDATE ON notes BEGIN UPDATE notes SET created_at = 0 WHERE id = NEW.id; END;";
    const out = rewritePluginMigration(sql, ctx);
    expect(out).toContain(
      "CREATE TRIGGER tr_plugin_acme_notes_notes_touch AFTER UPDATE ON plugin_acme_notes_notes",
    );
    expect(out).toContain("BEGIN UPDATE plugin_acme_notes_notes SET");
  });
});

describe("plugin migrations: every forbidden statement is refused, naming the rule", () => {
  const cases: [string, string][] = [
    [
      "CREATE TABLE notes (id TEXT PRIMARY KEY, job_id TEXT REFERENCES state_jobs (id))",
      "foreign-key-to-kernel",
    ],
    [
      "CREATE TABLE notes (id TEXT, FOREIGN KEY (id) REFERENCES config_plugins (plugin_id))",
      "foreign-key-to-kernel",
    ],
    [
      "CREATE TRIGGER tr_spy AFTER INSERT ON state_jobs BEGIN SELECT 1; END",
      "trigger-on-kernel-table",
    ],
    [
      "CREATE TRIGGER tr_x AFTER INSERT ON notes BEGIN DELETE FROM state_jobs; END",
      "trigger-body-foreign-table",
    ],
    ["DROP TABLE state_jobs", "drop-kernel-table"],
    ["DROP TABLE IF EXISTS config_preferences", "drop-kernel-table"],
    ["DROP INDEX ix_state_jobs_status", "drop-kernel-table"],
    ["ALTER TABLE state_jobs ADD COLUMN x TEXT", "alter-kernel-table"],
    [
      "ALTER TABLE notes ADD COLUMN job_id TEXT REFERENCES state_jobs (id)",
      "foreign-key-to-kernel",
    ],
    ["CREATE INDEX ix_sneaky ON state_jobs (nonce)", "index-on-kernel-table"],
    ["ATTACH DATABASE '/tmp/other.db' AS other", "attach"],
    ["DETACH DATABASE other", "attach"],
    ["PRAGMA foreign_keys = OFF", "global-pragma"],
    ["PRAGMA journal_mode = DELETE", "global-pragma"],
    ["CREATE TABLE secrets (id TEXT PRIMARY KEY)", "undeclared-table"],
    ["CREATE TABLE main.notes (id TEXT PRIMARY KEY)", "schema-qualified"],
    ["BEGIN; CREATE TABLE notes (id TEXT PRIMARY KEY); COMMIT", "transaction-control"],
    ["INSERT INTO notes (id) SELECT id FROM state_jobs", "foreign-table"],
    ["CREATE VIEW vw_jobs AS SELECT * FROM state_jobs", "foreign-table"],
    ["VACUUM", "unsupported-statement"],
    ["CREATE FUNCTION f() RETURNS int AS $$ SELECT 1 $$ LANGUAGE sql", "unsupported-statement"],
  ];
  for (const [sql, rule] of cases) {
    it(`${rule}: ${sql}`, () => {
      expect(refusedRule(() => rewritePluginMigration(sql, ctx))).toBe(rule);
    });
  }

  it("refuses the whole file when one statement of several is forbidden", () => {
    const sql = "CREATE TABLE notes (id TEXT PRIMARY KEY);\nDROP TABLE state_jobs;";
    const error = (() => {
      try {
        rewritePluginMigration(sql, ctx);
      } catch (e) {
        return e as PluginForbiddenSqlError;
      }
    })();
    expect(error?.message).toMatch(
      /001_init\.sql, statement 2: .*DROP.*\(state_jobs\) \[rule: drop-kernel-table\]/,
    );
  });
});

describe("scoped connection", () => {
  it("rewrites the plugin's logical table names and passes its own prefixed ones", () => {
    expect(
      checkScopedSql("SELECT * FROM notes n JOIN tags t ON t.note_id = n.id WHERE n.id = ?", scope),
    ).toBe(
      "SELECT * FROM plugin_acme_notes_notes n JOIN plugin_acme_notes_tags t ON t.note_id = n.id WHERE n.id = ?",
    );
    expect(
      checkScopedSql(
        "INSERT INTO notes (id) VALUES (?) ON CONFLICT (id) DO UPDATE SET id = excluded.id",
        scope,
      ),
    ).toContain("INSERT INTO plugin_acme_notes_notes");
    expect(
      checkScopedSql("WITH recent AS (SELECT id FROM notes) SELECT * FROM recent", scope),
    ).toContain("FROM plugin_acme_notes_notes");
    expect(checkScopedSql("SELECT * FROM plugin_acme_notes_notes", scope)).toBe(
      "SELECT * FROM plugin_acme_notes_notes",
    );
  });

  it("numbers placeholders for Postgres", () => {
    expect(
      checkScopedSql("SELECT * FROM notes WHERE id = ? AND body <> '?' AND created_at > ?", {
        ...scope,
        dialect: "postgres",
      }),
    ).toBe(
      "SELECT * FROM plugin_acme_notes_notes WHERE id = $1 AND body <> '?' AND created_at > $2",
    );
  });

  const refusals: [string, string][] = [
    ["SELECT * FROM state_jobs", "foreign-table"],
    ["SELECT * FROM notes, config_preferences", "foreign-table"],
    ["SELECT * FROM notes JOIN state_plugin_kv ON 1 = 1", "foreign-table"],
    ["SELECT * FROM (SELECT * FROM state_jobs) j", "foreign-table"],
    ["DELETE FROM plugin_other_notes", "foreign-table"],
    ["UPDATE state_jobs SET status = 'failed'", "foreign-table"],
    ["INSERT INTO config_plugins (plugin_id) VALUES ('x')", "foreign-table"],
    ["SELECT * FROM main.state_jobs", "schema-qualified"],
    ["SELECT * FROM pragma_table_info('state_jobs')", "global-pragma"],
    ["CREATE TABLE notes2 (id TEXT)", "ddl"],
    ["DROP TABLE notes", "ddl"],
    ["ALTER TABLE notes ADD COLUMN x TEXT", "ddl"],
    ["TRUNCATE notes", "ddl"],
    ["ATTACH DATABASE 'x.db' AS x", "attach"],
    ["PRAGMA table_info(notes)", "global-pragma"],
    ["BEGIN", "transaction-control"],
    ["SELECT 1; SELECT 2", "multiple-statements"],
  ];
  for (const [sql, rule] of refusals) {
    it(`refuses ${rule}: ${sql}`, () => {
      expect(refusedRule(() => checkScopedSql(sql, scope))).toBe(rule);
    });
  }
});
