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

  it("prefixes every name of a DROP list and what its tables inherit", () => {
    expect(rewritePluginMigration("DROP TABLE IF EXISTS notes, tags", ctx)).toBe(
      "DROP TABLE IF EXISTS plugin_acme_notes_notes, plugin_acme_notes_tags",
    );
    expect(rewritePluginMigration("CREATE TABLE tags (LIKE notes) INHERITS (notes)", ctx)).toBe(
      "CREATE TABLE plugin_acme_notes_tags (LIKE plugin_acme_notes_notes) INHERITS (plugin_acme_notes_notes)",
    );
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
    ["DROP TABLE notes, state_executions", "drop-kernel-table"],
    ["DROP TABLE IF EXISTS tags, config_preferences CASCADE", "drop-kernel-table"],
    ["DROP INDEX ix_notes_created_at, ix_state_jobs_status", "drop-kernel-table"],
    ["DROP TRIGGER tr_notes_touch ON state_jobs", "drop-kernel-table"],
    ["CREATE TABLE notes (id TEXT) INHERITS (state_jobs)", "inherit-foreign-table"],
    ["CREATE TABLE notes (id TEXT) INHERITS (tags, state_jobs)", "inherit-foreign-table"],
    ["CREATE TABLE notes (LIKE state_jobs INCLUDING ALL)", "inherit-foreign-table"],
    ["CREATE TABLE notes PARTITION OF state_jobs FOR VALUES IN ('x')", "inherit-foreign-table"],
    ["ALTER TABLE notes INHERIT state_jobs", "inherit-foreign-table"],
    ["ALTER TABLE notes NO INHERIT config_plugins", "inherit-foreign-table"],
    ["ALTER TABLE notes ATTACH PARTITION state_jobs FOR VALUES IN ('x')", "inherit-foreign-table"],
    ["CREATE TABLE notes AS SELECT * FROM (SELECT 1 AS id) x, state_jobs", "foreign-table"],
    ["INSERT INTO notes (id) SELECT id FROM (state_jobs)", "foreign-table"],
    ["DROP TABLE plugin_acme_notes_b_notes", "drop-kernel-table"],
    ["DROP INDEX ix_plugin_acme_notes_b_notes_x", "drop-kernel-table"],
    ["INSERT INTO notes (id) SELECT id FROM plugin_acme_notes_secrets", "foreign-table"],
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
    // Under the prefix but not declared: another plugin's (`acme-notes-b`) or nobody's.
    ["SELECT * FROM plugin_acme_notes_b_notes", "foreign-table"],
    ["SELECT * FROM plugin_acme_notes_secrets", "foreign-table"],
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
    // Wherever a table can stand: in parentheses, parenthesised joins, after a subquery, TABLE.
    ["SELECT * FROM (config_preferences)", "foreign-table"],
    ["SELECT * FROM ((config_preferences))", "foreign-table"],
    ["SELECT * FROM (state_jobs CROSS JOIN notes)", "foreign-table"],
    ["SELECT * FROM (notes, state_jobs)", "foreign-table"],
    ["SELECT * FROM (SELECT 1 AS x) j, config_preferences", "foreign-table"],
    ["SELECT * FROM json_each('[]') j, config_preferences", "foreign-table"],
    ["SELECT * FROM notes JOIN (state_jobs) j ON 1 = 1", "foreign-table"],
    ["SELECT * FROM ONLY state_jobs", "foreign-table"],
    ["TABLE state_jobs", "foreign-table"],
    ["WITH x AS (TABLE state_jobs) SELECT * FROM x", "foreign-table"],
    ["SELECT * FROM notes WHERE id IN (TABLE config_preferences)", "foreign-table"],
    ["DELETE FROM notes USING state_jobs WHERE notes.id = state_jobs.id", "foreign-table"],
    ["UPDATE notes SET body = j.nonce FROM state_jobs j", "foreign-table"],
    ["WITH state_jobs AS (SELECT * FROM state_jobs) SELECT * FROM state_jobs", "foreign-table"],
    ["SELECT * FROM sqlite_master", "foreign-table"],
    ["SELECT * FROM notes WHERE EXISTS (SELECT 1 FROM pg_settings)", "foreign-table"],
    // Functions that run SQL text, touch files, change settings or take the kernel's locks.
    ["SELECT query_to_xml('select * from state_jobs', true, false, '')", "forbidden-function"],
    ["SELECT table_to_xml('state_jobs', true, false, '')", "forbidden-function"],
    ["SELECT * FROM ts_stat('select nonce from state_jobs')", "forbidden-function"],
    ["SELECT set_config('search_path', 'pg_catalog', false)", "forbidden-function"],
    ["SELECT pg_catalog.set_config('search_path', 'x', false)", "forbidden-function"],
    ["SELECT pg_read_file('/etc/passwd')", "forbidden-function"],
    ["SELECT lo_import('/etc/passwd')", "forbidden-function"],
    ["SELECT * FROM dblink('dbname=x', 'select 1') AS t(a int)", "forbidden-function"],
    ["SELECT pg_advisory_lock(1)", "forbidden-function"],
    ["SELECT setval('scan_links_id_seq', 1)", "forbidden-function"],
    ["SELECT load_extension('/tmp/evil.so')", "forbidden-function"],
    ["SELECT readfile('/etc/passwd')", "forbidden-function"],
    ["INSERT INTO notes (id, body) VALUES ('x', writefile('/tmp/x', 'y'))", "forbidden-function"],
  ];
  for (const [sql, rule] of refusals) {
    it(`refuses ${rule}: ${sql}`, () => {
      expect(refusedRule(() => checkScopedSql(sql, scope))).toBe(rule);
      expect(refusedRule(() => checkScopedSql(sql, { ...scope, dialect: "postgres" }))).toBe(rule);
    });
  }

  it("with the database's relations known, refuses them wherever they are named", () => {
    const known = { ...scope, relations: new Set(["state_jobs", "config_preferences", "notes"]) };
    for (const sql of [
      "SELECT state_jobs.id FROM notes",
      "SELECT * FROM notes WHERE body = (SELECT min(key) FROM notes) OR id = config_preferences",
    ]) {
      expect(refusedRule(() => checkScopedSql(sql, known))).toBe("foreign-table");
    }
    // A column named after nothing in the database is fine, as are the plugin's own names.
    expect(checkScopedSql("SELECT n.config_json FROM notes n", known)).toBe(
      "SELECT n.config_json FROM plugin_acme_notes_notes n",
    );
  });

  it("rewrites the plugin's own tables in every position it refuses others in", () => {
    expect(checkScopedSql("SELECT * FROM (notes n CROSS JOIN tags t)", scope)).toBe(
      "SELECT * FROM (plugin_acme_notes_notes n CROSS JOIN plugin_acme_notes_tags t)",
    );
    expect(checkScopedSql("SELECT * FROM (SELECT 1 AS x) j, notes", scope)).toBe(
      "SELECT * FROM (SELECT 1 AS x) j, plugin_acme_notes_notes",
    );
    expect(checkScopedSql("WITH x AS (TABLE notes) SELECT * FROM x", scope)).toBe(
      "WITH x AS (TABLE plugin_acme_notes_notes) SELECT * FROM x",
    );
  });
});

describe("plugin migrations: forbidden functions", () => {
  it("refuses SQL-text and file functions in migrations too", () => {
    expect(
      refusedRule(() =>
        rewritePluginMigration(
          "INSERT INTO notes (id) SELECT query_to_xml('select * from state_jobs', true, false, '')::text",
          ctx,
        ),
      ),
    ).toBe("forbidden-function");
  });
});
