import { describe, expect, it } from "vitest";
import { compareCodePoints } from "../../src/core/index.js";
import {
  checkNamingRules,
  checkSqlKeywordCase,
  KERNEL_NAMING,
  type TableSnapshot,
} from "../../src/store/index.js";

/** A table that follows every rule; each case breaks one. */
function table(overrides: Partial<TableSnapshot> = {}): TableSnapshot {
  return {
    name: "state_widgets",
    columns: [
      { name: "id", type: "TEXT", notNull: true, defaultValue: null },
      { name: "job_id", type: "TEXT", notNull: false, defaultValue: null },
      { name: "created_at", type: "INTEGER", notNull: true, defaultValue: null },
    ],
    primaryKey: ["id"],
    indexes: [
      {
        name: "ix_state_widgets_created_at",
        unique: false,
        partial: false,
        columns: ["created_at"],
      },
    ],
    constraints: [
      {
        name: "ck_state_widgets_kind",
        kind: "check",
        definition: "(kind IN ('small', 'extra-large'))",
      },
      { name: "fk_state_widgets_job_id", kind: "foreign-key", definition: null },
    ],
    references: ["state_jobs"],
    foreignKeys: [{ columns: ["job_id"], table: "state_jobs", referencedColumns: ["id"] }],
    appendOnly: false,
    ...overrides,
  };
}

const rules = (t: TableSnapshot) =>
  checkNamingRules({ tables: [t] }, KERNEL_NAMING).map((p) => p.rule);

describe("naming rules the live-schema check enforces", () => {
  it("accepts a table that follows them all", () => {
    expect(rules(table())).toEqual([]);
  });

  it("table names are plural (the seed's own state_enrichment and state_plugin_kv excepted)", () => {
    expect(rules(table({ name: "state_widget" }))).toContain("table-plural");
    expect(rules(table({ name: "state_status" }))).toContain("table-plural");
    expect(rules(table({ name: "state_enrichment", indexes: [], constraints: [] }))).toEqual([]);
  });

  it("a foreign key is named <referenced_table_singular>_id, with an optional role before it", () => {
    const fk = (column: string, referenced: string) =>
      table({
        columns: [{ name: column, type: "TEXT", notNull: false, defaultValue: null }],
        foreignKeys: [{ columns: [column], table: referenced, referencedColumns: ["id"] }],
        primaryKey: [],
        indexes: [],
      });
    expect(rules(fk("job", "state_jobs"))).toContain("foreign-key-name");
    expect(rules(fk("jobs_id", "state_jobs"))).toContain("foreign-key-name");
    expect(rules(fk("job_id", "state_jobs"))).toEqual([]);
    expect(rules(fk("request_artifact_id", "state_artifacts"))).toEqual([]);
    expect(rules(fk("checkpoint_blob_id", "state_checkpoint_blobs"))).toEqual([]);
    expect(rules(fk("entry_id", "state_entries"))).toEqual([]);
  });

  it("the primary key is id, unless it is the table's foreign key to its parent (a 1:1 table)", () => {
    expect(
      rules(
        table({
          primaryKey: ["key"],
          columns: [
            ...table().columns,
            { name: "key", type: "TEXT", notNull: true, defaultValue: null },
          ],
        }),
      ),
    ).toContain("primary-key-id");
    // state_run_documents before migration 014: keyed by `id`, a foreign key to state_runs.
    const before = table({
      name: "state_run_documents",
      columns: [{ name: "id", type: "TEXT", notNull: true, defaultValue: null }],
      primaryKey: ["id"],
      indexes: [],
      constraints: [],
      foreignKeys: [{ columns: ["id"], table: "state_runs", referencedColumns: ["id"] }],
    });
    expect(rules(before)).toEqual(["foreign-key-name"]);
    const after = table({
      ...before,
      columns: [{ name: "run_id", type: "TEXT", notNull: true, defaultValue: null }],
      primaryKey: ["run_id"],
      foreignKeys: [{ columns: ["run_id"], table: "state_runs", referencedColumns: ["id"] }],
    });
    expect(rules(after)).toEqual([]);
  });

  it("CHECK enum values are kebab-case lowercase, as SQLite and Postgres render them", () => {
    const check = (definition: string) =>
      table({ constraints: [{ name: "ck_state_widgets_kind", kind: "check", definition }] });
    expect(rules(check("(kind IN ('Small', 'large'))"))).toContain("enum-kebab-case");
    expect(rules(check("(kind IN ('tool_call'))"))).toContain("enum-kebab-case");
    expect(rules(check("((kind = ANY (ARRAY['small'::text, 'extra-large'::text])))"))).toEqual([]);
    expect(rules(check("(length(kind) > 0)"))).toEqual([]);
  });

  it("an index is named ix_<table>_<all its columns>", () => {
    const index = (name: string, columns: string[]) =>
      table({ indexes: [{ name, unique: false, partial: false, columns }] });
    expect(rules(index("ix_state_widgets_created_at", ["created_at", "id"]))).toContain(
      "index-name",
    );
    expect(rules(index("ix_state_widgets_when", ["created_at"]))).toContain("index-name");
    expect(rules(index("ix_state_widgets_created_at_id", ["created_at", "id"]))).toEqual([]);
  });

  it("SQL keywords are UPPERCASE and identifiers lowercase in migration files", () => {
    const found = checkSqlKeywordCase(
      "create TABLE state_widgets (Id TEXT Not NULL, key TEXT, CONSTRAINT pk PRIMARY key (id));",
      "001_x.sql",
    ).map((p) => p.object);
    expect(found).toEqual(["create", "Id", "Not", "key"]);
    expect(
      checkSqlKeywordCase(
        "-- create table\nCREATE TABLE t (key TEXT DEFAULT 'lower case', n INTEGER CHECK (length(key) > 0));\nCREATE FUNCTION f() RETURNS trigger AS $$ begin return new; end $$ LANGUAGE plpgsql;",
        "002_y.sql",
      ),
    ).toEqual([]);
  });
});

describe("code-point order", () => {
  it("orders by Unicode code point, unlike localeCompare and the default UTF-16 sort", () => {
    const names = ["b", "\u{1F600}", "B", "\uFFFF", "a_1", "a1"];
    expect([...names].sort(compareCodePoints)).toEqual([
      "B",
      "a1",
      "a_1",
      "b",
      "\uFFFF",
      "\u{1F600}",
    ]);
    expect([...names].sort()).not.toEqual([...names].sort(compareCodePoints));
    expect(compareCodePoints("a", "ab")).toBeLessThan(0);
    expect(compareCodePoints("ab", "a")).toBeGreaterThan(0);
    expect(compareCodePoints("x", "x")).toBe(0);
  });
});
