import { checkSqlKeywordCase } from "../naming/sql-keyword-case.js";
import { PluginForbiddenSqlError } from "./errors.js";
import { forbiddenFunctionCall } from "./forbidden-functions.js";
import { ownsIndexName, ownsTable, type PluginNamespace } from "./plugin-namespace.js";
import { isKernelName, PLUGIN_SQL_RULES, type PluginSqlRule } from "./plugin-sql-rules.js";
import { identifier, type SqlToken, splitStatements, tokenize } from "./sql-tokens.js";
import { tableReferences } from "./table-references.js";

/** Who the SQL belongs to: the plugin's namespace (it owns its declared tables only). */
export interface PluginSqlContext extends PluginNamespace {
  /** The migration file, for messages. */
  readonly file: string;
}

interface Replacement {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/**
 * Validates a plugin migration and injects the plugin's prefix (protections 1 and 2 of seed
 * 004): every table, index, trigger and constraint name gets `plugin_<id>_`; statements that
 * would touch a table the plugin does not own, ATTACH, PRAGMA and transaction control are
 * refused with a PluginForbiddenSqlError naming the rule. Returns the SQL to run.
 *
 * @example
 * rewritePluginMigration("CREATE TABLE notes (id TEXT PRIMARY KEY)", ctx);
 * // "CREATE TABLE plugin_acme_notes (id TEXT PRIMARY KEY)"
 */
export function rewritePluginMigration(sql: string, ctx: PluginSqlContext): string {
  const replacements: Replacement[] = [];
  const statements = splitStatements(tokenize(sql));
  statements.forEach((statement, index) => {
    replacements.push(...rewriteStatement(statement, index + 1, ctx));
  });
  // The seed's naming rules bind plugin SQL too: keywords UPPERCASE, identifiers lowercase.
  const casing = checkSqlKeywordCase(sql, ctx.file);
  if (casing.length > 0) {
    throw new PluginForbiddenSqlError(
      "naming",
      `Plugin "${ctx.pluginId}": ${PLUGIN_SQL_RULES.naming}: ${casing
        .slice(0, 5)
        .map((p) => p.message)
        .join("; ")} [rule: naming].`,
      { details: { pluginId: ctx.pluginId, file: ctx.file, problems: casing } },
    );
  }
  let out = sql;
  for (const r of replacements.sort((a, b) => b.start - a.start)) {
    out = out.slice(0, r.start) + r.text + out.slice(r.end);
  }
  return out;
}

function rewriteStatement(
  tokens: SqlToken[],
  number: number,
  ctx: PluginSqlContext,
): Replacement[] {
  const refuse = (rule: PluginSqlRule, subject?: string): never => {
    const about = subject ? ` (${subject})` : "";
    throw new PluginForbiddenSqlError(
      rule,
      `Plugin "${ctx.pluginId}", ${ctx.file}, statement ${number}: ${PLUGIN_SQL_RULES[rule]}${about} [rule: ${rule}].`,
      {
        details: {
          pluginId: ctx.pluginId,
          file: ctx.file,
          statement: number,
          subject: subject ?? null,
        },
      },
    );
  };
  const words = tokens.map((t) => (t.kind === "word" ? t.value : ""));
  const first = words[0] ?? "";
  const replacements: Replacement[] = [];
  const owned = new Map<number, "table" | "index" | "name">(); // token index → how to rename

  const own = (name: string) => ownsTable(ctx, name);
  const target = (at: number, kind: "table" | "index" | "name", rule: PluginSqlRule) => {
    const name = identifier(tokens[at]);
    if (name === undefined) refuse("unsupported-statement", tokens[at]?.text);
    if (tokens[at + 1]?.text === ".")
      refuse("schema-qualified", `${name}.${tokens[at + 2]?.text ?? ""}`);
    if (kind === "table" && !own(name as string)) refuse(rule, name);
    owned.set(at, kind);
  };
  const skipIfExists = (at: number, words3: string[]) => {
    let i = at;
    for (const word of words3) if (words[i] === word) i++;
    return i;
  };

  if (first === "attach" || first === "detach") refuse("attach");
  if (first === "pragma")
    refuse(
      "global-pragma",
      tokens
        .slice(1, 2)
        .map((t) => t.text)
        .join(""),
    );
  if (["begin", "commit", "end", "rollback", "savepoint", "release"].includes(first))
    refuse("transaction-control");

  const call = forbiddenFunctionCall(tokens);
  if (call) refuse("forbidden-function", `${call.name}: ${call.why}`);

  let bodyFrom = 0;
  let referenceRule: PluginSqlRule = "foreign-table";
  if (first === "create") {
    let i = 1;
    while (["temp", "temporary", "unique", "or", "replace"].includes(words[i] ?? "")) i++;
    const what = words[i];
    i = skipIfExists(i + 1, ["if", "not", "exists"]);
    if (what === "table") {
      const name = identifier(tokens[i]) ?? "";
      if (tokens[i + 1]?.text === ".")
        refuse("schema-qualified", `${name}.${tokens[i + 2]?.text ?? ""}`);
      if (!own(name)) refuse("undeclared-table", name);
      target(i, "table", "undeclared-table");
      referenceRule = "foreign-key-to-kernel";
      // CONSTRAINT names get the prefix too: ck_x → ck_plugin_<id>_x
      tokens.forEach((token, at) => {
        if (token.value === "constraint") owned.set(at + 1, "name");
      });
    } else if (what === "index") {
      target(i, "index", "index-on-kernel-table");
      const on = words.indexOf("on", i);
      if (on === -1) refuse("unsupported-statement", "CREATE INDEX without ON");
      target(on + 1, "table", "index-on-kernel-table");
    } else if (what === "trigger") {
      target(i, "name", "trigger-on-kernel-table");
      const on = words.indexOf("on", i);
      if (on === -1) refuse("unsupported-statement", "CREATE TRIGGER without ON");
      target(on + 1, "table", "trigger-on-kernel-table");
      bodyFrom = Math.max(words.indexOf("begin", on), on + 2);
      referenceRule = "trigger-body-foreign-table";
    } else if (what === "view") {
      target(i, "name", "foreign-table");
    } else {
      refuse("unsupported-statement", `CREATE ${tokens[i - 1]?.text ?? ""}`);
    }
  } else if (first === "alter") {
    if (words[1] !== "table") refuse("unsupported-statement", `ALTER ${tokens[1]?.text ?? ""}`);
    const at = skipIfExists(2, ["if", "exists"]);
    target(at, "table", "alter-kernel-table");
    const renameTo = words.findIndex(
      (w, idx) => w === "to" && words[idx - 1] === "rename" && idx > at,
    );
    if (renameTo !== -1) {
      const newName = identifier(tokens[renameTo + 1]) ?? "";
      if (!own(newName)) refuse("undeclared-table", newName);
      target(renameTo + 1, "table", "undeclared-table");
    }
    referenceRule = "foreign-key-to-kernel";
  } else if (first === "drop") {
    const what = words[1];
    // Every name of the list counts: DROP TABLE notes, state_jobs drops both.
    let at = skipIfExists(2, ["if", "exists"]);
    for (;;) {
      if (what === "table") target(at, "table", "drop-kernel-table");
      else if (what === "index") {
        const name = identifier(tokens[at]) ?? "";
        if (!ownsIndexName(ctx, name)) refuse("drop-kernel-table", name);
        owned.set(at, "index");
      } else if (what === "view" || what === "trigger") {
        const name = identifier(tokens[at]) ?? "";
        if (isKernelName(name)) refuse("drop-kernel-table", name);
        owned.set(at, "name");
      } else refuse("unsupported-statement", `DROP ${tokens[1]?.text ?? ""}`);
      if (tokens[at + 1]?.text === ".")
        refuse("schema-qualified", `${tokens[at]?.text ?? ""}.${tokens[at + 2]?.text ?? ""}`);
      if (tokens[at + 1]?.text !== ",") break;
      at += 2;
    }
    // Postgres: DROP TRIGGER name ON table.
    if (what === "trigger" && words[at + 1] === "on") target(at + 2, "table", "drop-kernel-table");
  } else if (!["insert", "update", "delete", "replace", "with", "select"].includes(first)) {
    refuse("unsupported-statement", tokens[0]?.text);
  }

  for (const ref of tableReferences(tokens, bodyFrom)) {
    if (owned.has(ref.index)) continue;
    if (ref.qualified) refuse("schema-qualified", ref.name);
    if (ref.isFunction) {
      if (ref.name.startsWith("pragma_")) refuse("global-pragma", ref.name);
      continue;
    }
    if (!own(ref.name)) {
      if (["inherits", "partition", "like"].includes(ref.via))
        refuse("inherit-foreign-table", ref.name);
      refuse(
        ref.via === "references" ? referenceRule : bodyFrom > 0 ? referenceRule : "foreign-table",
        ref.name,
      );
    }
    owned.set(ref.index, "table");
  }

  for (const [at, kind] of owned) {
    const token = tokens[at];
    const name = identifier(token);
    if (!token || name === undefined) continue;
    const renamed = rename(name, kind, ctx.prefix);
    if (renamed !== name || token.kind === "quoted") {
      replacements.push({ start: token.start, end: token.end, text: renamed });
    }
  }
  return replacements;
}

/** Applies prefix injection to one name. */
export function rename(name: string, kind: "table" | "index" | "name", prefix: string): string {
  if (kind === "table") return name.startsWith(prefix) ? name : `${prefix}${name}`;
  if (kind === "index") {
    if (name.startsWith(`ix_${prefix}`)) return name;
    return `ix_${prefix}${name.startsWith("ix_") ? name.slice(3) : name}`;
  }
  // Constraints (ck_/uq_/fk_/pk_), triggers, views: the prefix goes after a 3-letter kind prefix.
  const kindPrefix = /^(ck|uq|fk|pk|tr|vw)_/.exec(name)?.[0];
  if (name.includes(prefix)) return name;
  return kindPrefix ? `${kindPrefix}${prefix}${name.slice(kindPrefix.length)}` : `${prefix}${name}`;
}
