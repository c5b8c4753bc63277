import { identifier, type SqlToken } from "./sql-tokens.js";

/**
 * Functions plugin SQL may not call, on either dialect: they run SQL text of their own (which no
 * validator sees), reach files or other databases, change settings, or take the locks the
 * kernel migrates under. Matched on the function's name, whatever schema qualifies it.
 */
const FORBIDDEN: readonly { pattern: RegExp; why: string }[] = [
  // Postgres: SQL given as text.
  { pattern: /^(query|table|cursor|schema|database)_to_xml/, why: "runs SQL given as text" },
  { pattern: /^ts_(stat|rewrite)$/, why: "runs SQL given as text" },
  { pattern: /^dblink/, why: "runs SQL on another connection" },
  // Postgres: settings, sessions, locks, sequences.
  { pattern: /^set_config$/, why: "changes a setting (search_path…)" },
  { pattern: /^pg_(terminate|cancel)_backend$/, why: "acts on other sessions" },
  { pattern: /^pg_(reload_conf|rotate_logfile|switch_wal|promote)$/, why: "acts on the server" },
  { pattern: /^pg_(try_)?advisory/, why: "takes the locks the kernel migrates under" },
  { pattern: /^(setval|nextval)$/, why: "changes a sequence" },
  // Postgres: files and large objects.
  { pattern: /^pg_(read_file|read_binary_file|ls_|stat_file|file_)/, why: "reads or writes files" },
  { pattern: /^lo(_|read$|write$)/, why: "reads or writes large objects and files" },
  // SQLite: extensions and files.
  { pattern: /^load_extension$/, why: "loads native code" },
  { pattern: /^(readfile|writefile|edit|fsdir|zipfile)$/, why: "reads or writes files" },
  { pattern: /^fts3_tokenizer$/, why: "registers native code" },
];

/** The first forbidden function call in a statement, with why it is forbidden. */
export function forbiddenFunctionCall(
  tokens: readonly SqlToken[],
): { name: string; why: string } | undefined {
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i + 1]?.text !== "(") continue;
    const name = identifier(tokens[i]);
    if (name === undefined) continue;
    const rule = FORBIDDEN.find((entry) => entry.pattern.test(name));
    if (rule) return { name, why: rule.why };
  }
  return undefined;
}
