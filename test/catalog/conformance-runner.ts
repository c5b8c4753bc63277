/**
 * A conformance runner for the skill-map case format (the spec's conformance-case.schema.json):
 * each case gets a fresh scope with its fixture copied in, the verb is invoked (in this process,
 * or as a real child process), and every assertion is checked. Unknown assertion types fail.
 */
import { spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { keelInProcess } from "../store/cli-in-process.js";
import { evaluateJsonPath } from "./json-path.js";

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as (ajv: Ajv2020) => void;

export const REPO = new URL("../../", import.meta.url).pathname;
export const SPEC_DIR = join(REPO, "../shared/reference/skill-map-spec-0.1.0");
export const SUITE_DIR = join(REPO, "../shared/reference/skill-map-conformance");

export interface ConformanceCase {
  id: string;
  description: string;
  fixture?: string;
  setup?: {
    disableAllAdapters?: boolean;
    disableAllDetectors?: boolean;
    disableAllRules?: boolean;
  };
  invoke: { verb: string; sub?: string; args?: string[]; flags?: string[] };
  assertions: Assertion[];
}

export type Assertion =
  | { type: "exit-code"; value: number }
  | {
      type: "json-path";
      path: string;
      equals?: unknown;
      greaterThan?: number;
      lessThan?: number;
      matches?: string;
    }
  | { type: "file-exists"; path: string }
  | { type: "file-contains-verbatim"; path: string; fixture: string }
  | { type: "file-matches-schema"; path: string; schema: string }
  | { type: "stderr-matches"; pattern: string };

export interface Invocation {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Reads every `*.json` case of a folder, sorted by file name. */
export function readCases(dir: string): ConformanceCase[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith(".json"))
    .sort()
    .map((name) => JSON.parse(readFileSync(join(dir, name), "utf8")) as ConformanceCase);
}

/** A fresh scope folder with the case's fixture copied in. */
export function provisionScope(testCase: ConformanceCase, fixturesDir: string): string {
  const scope = mkdtempSync(join(tmpdir(), `keel-conf-${testCase.id}-`));
  if (testCase.fixture) cpSync(join(fixturesDir, testCase.fixture), scope, { recursive: true });
  // A .git folder cannot live in a git-tracked fixture; the suite asks runners to make one.
  if (testCase.fixture === "ignore-defaults") {
    mkdirSync(join(scope, ".git"), { recursive: true });
    writeFileSync(join(scope, ".git", "x.md"), "# inside .git\n");
  }
  return scope;
}

/** The environment a case's `setup` asks for (the reference runner's variables). */
export function caseEnv(testCase: ConformanceCase): Record<string, string> {
  const env: Record<string, string> = {};
  if (testCase.setup?.disableAllAdapters) env.SKILL_MAP_DISABLE_ALL_ADAPTERS = "1";
  if (testCase.setup?.disableAllDetectors) env.SKILL_MAP_DISABLE_ALL_DETECTORS = "1";
  if (testCase.setup?.disableAllRules) env.SKILL_MAP_DISABLE_ALL_RULES = "1";
  return env;
}

export function caseArgs(testCase: ConformanceCase): string[] {
  const { verb, sub, args = [], flags = [] } = testCase.invoke;
  return [verb, ...(sub ? [sub] : []), ...args, ...flags];
}

/** Runs the verb in this process (the real program, stdout captured). */
export async function invokeInProcess(
  testCase: ConformanceCase,
  scope: string,
): Promise<Invocation> {
  const run = await keelInProcess(caseArgs(testCase), {
    cwd: scope,
    env: {
      ...caseEnv(testCase),
      SKILL_MAP_DB: undefined,
      SKILL_MAP_SCOPE: undefined,
      SKILL_MAP_JSON: undefined,
    },
  });
  return { exitCode: run.exitCode, stdout: run.stdout, stderr: run.stderr };
}

/**
 * Runs the verb as a child process, as the spec's runner does with `sm <verb> …`: the package's
 * bin (bin/keel.js, which `sm` and `skill-map` name too) running the build in dist/.
 */
export function invokeChild(testCase: ConformanceCase, scope: string): Invocation {
  if (!existsSync(join(REPO, "dist/cli/commands/catalog-scan.js"))) {
    throw new Error("dist/ has no catalog: run `npm run build` (npm install runs it).");
  }
  const env: Record<string, string | undefined> = {
    ...process.env,
    NO_COLOR: "1",
    ...caseEnv(testCase),
  };
  for (const key of Object.keys(env))
    if (key.startsWith("KEEL_") || key.startsWith("SKILL_MAP_DB")) delete env[key];
  const result = spawnSync(process.execPath, [join(REPO, "bin/keel.js"), ...caseArgs(testCase)], {
    cwd: scope,
    encoding: "utf8",
    env: { ...env, ...caseEnv(testCase) },
  });
  return { exitCode: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

function globMatches(scope: string, pattern: string): string[] {
  const regex = new RegExp(
    `^${pattern
      .split("/")
      .map((part) =>
        part
          .replace(/[.+^${}()|[\]\\]/g, "\\$&")
          .replace(/\*/g, "[^/]*")
          .replace(/\?/g, "[^/]"),
      )
      .join("/")}$`,
  );
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (regex.test(relative(scope, full))) found.push(full);
    }
  };
  walk(scope);
  return found;
}

let schemaAjv: Ajv2020 | undefined;
/** ajv with every spec schema loaded (so `$ref`s between them resolve). */
export function specAjv(): Ajv2020 {
  if (schemaAjv) return schemaAjv;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".schema.json"))
        ajv.addSchema(JSON.parse(readFileSync(full, "utf8")));
    }
  };
  walk(join(SPEC_DIR, "schemas"));
  schemaAjv = ajv;
  return ajv;
}

/** Validates `data` against a spec schema given by its path under `schemas/`; returns problems. */
export function schemaProblems(schemaPath: string, data: unknown): string[] {
  const ajv = specAjv();
  const id = `https://skill-map.dev/spec/v0/${schemaPath}`;
  const validate = ajv.getSchema(id);
  if (!validate) throw new Error(`no spec schema ${schemaPath}`);
  if (validate(data)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message}`);
}

/** Checks one assertion; returns null when it holds, else what went wrong. */
export function checkAssertion(
  assertion: Assertion,
  run: Invocation,
  scope: string,
  fixturesDir: string,
): string | null {
  switch (assertion.type) {
    case "exit-code":
      return run.exitCode === assertion.value
        ? null
        : `exit code ${run.exitCode}, expected ${assertion.value}`;
    case "json-path": {
      let document: unknown;
      try {
        document = JSON.parse(run.stdout);
      } catch {
        return `stdout is not JSON: ${run.stdout.slice(0, 200)}`;
      }
      const { found, value } = evaluateJsonPath(document, assertion.path);
      if (!found) return `${assertion.path} matched nothing`;
      if ("equals" in assertion && !deepEqual(value, assertion.equals)) {
        return `${assertion.path} is ${JSON.stringify(value)}, expected ${JSON.stringify(assertion.equals)}`;
      }
      if (assertion.greaterThan !== undefined && !(Number(value) > assertion.greaterThan)) {
        return `${assertion.path} is ${JSON.stringify(value)}, expected > ${assertion.greaterThan}`;
      }
      if (assertion.lessThan !== undefined && !(Number(value) < assertion.lessThan)) {
        return `${assertion.path} is ${JSON.stringify(value)}, expected < ${assertion.lessThan}`;
      }
      if (assertion.matches !== undefined && !new RegExp(assertion.matches).test(String(value))) {
        return `${assertion.path} is ${JSON.stringify(value)}, expected to match /${assertion.matches}/`;
      }
      return null;
    }
    case "file-exists":
      return globMatches(scope, assertion.path).length > 0
        ? null
        : `no file matches ${assertion.path}`;
    case "file-contains-verbatim": {
      const files = globMatches(scope, assertion.path);
      if (files.length !== 1)
        return `${assertion.path} matches ${files.length} files, expected exactly 1`;
      const expected = readFileSync(join(fixturesDir, assertion.fixture));
      return readFileSync(files[0] as string).includes(expected)
        ? null
        : `${assertion.path} does not contain ${assertion.fixture}`;
    }
    case "file-matches-schema": {
      const files = globMatches(scope, assertion.path);
      if (files.length !== 1)
        return `${assertion.path} matches ${files.length} files, expected exactly 1`;
      let data: unknown;
      try {
        data = JSON.parse(readFileSync(files[0] as string, "utf8"));
      } catch {
        return `${assertion.path} is not JSON`;
      }
      const problems = schemaProblems(assertion.schema, data);
      return problems.length === 0
        ? null
        : `${assertion.path} breaks ${assertion.schema}: ${problems.join("; ")}`;
    }
    case "stderr-matches":
      return new RegExp(assertion.pattern).test(run.stderr)
        ? null
        : `stderr does not match /${assertion.pattern}/`;
    default:
      return `unknown assertion type ${JSON.stringify((assertion as { type: unknown }).type)}`;
  }
}

/** Every failed assertion of a run (empty: the case passes). */
export function failedAssertions(
  testCase: ConformanceCase,
  run: Invocation,
  scope: string,
  fixturesDir: string,
): string[] {
  return testCase.assertions
    .map((assertion) => checkAssertion(assertion, run, scope, fixturesDir))
    .filter((problem): problem is string => problem !== null);
}

export function removeScope(scope: string): void {
  if (existsSync(scope)) rmSync(scope, { recursive: true, force: true });
}
