/**
 * Every runnable sample of the user guide (`docs/guide/*.md`) works as printed. A fenced block
 * whose info string says `runnable` is run, chapter by chapter, in a fresh project folder (with
 * `examples/` linked in, as in a checkout):
 *
 * - ` ```ts file=<name> runnable `, ` ```json file=<name> runnable `: written to `<name>`;
 * - ` ```sh runnable `: each command line, in order — `keel …` through the real program in this
 *   process (it must exit 0, or the code a trailing `# exit N` names), `npx tsx <file.ts> …`
 *   by importing the file in this process with those arguments, `NAME=value` and
 *   `NAME=$(keel … | jq -r '<path>')` to keep a value for a later `$NAME`, `cd <dir>`.
 *   A line with `# expect <text>` must print that text.
 *
 * Files import `keel` as a user would; here the package's subpaths map onto `src/`. The Postgres
 * chapter's URL (`postgres://postgres@127.0.0.1:5432/keel`) is replaced by a fresh test database.
 */
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { keelInProcess } from "../support/cli.js";
import { postgresAvailable } from "../support/postgres.js";
import { createMigratedDatabase } from "../support/templates.js";

const root = new URL("../../", import.meta.url).pathname;
// Compared with real paths: a checkout reached through a symlink must still count as the
// repository, or a rewritten copy of an example would be written into it.
const realRoot = realpathSync(root);
const guide = join(root, "docs", "guide");
const GUIDE_POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/keel";
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

interface Block {
  lang: string;
  file: string | undefined;
  body: string;
  line: number;
}

/** The runnable fenced blocks of a chapter, in order. */
function runnableBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w+)\s*(.*)$/.exec(lines[i] ?? "");
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !(lines[i] ?? "").startsWith("```"); i++)
      body.push(lines[i] ?? "");
    const info = open[2] ?? "";
    if (!/\brunnable\b/.test(info)) continue;
    blocks.push({
      lang: open[1] ?? "",
      file: /\bfile=(\S+)/.exec(info)?.[1],
      body: body.join("\n"),
      line: start + 1,
    });
  }
  return blocks;
}

/** Shell words: single and double quotes, `$NAME` and `${NAME}` outside single quotes. */
function shellWords(line: string, vars: Record<string, string>): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word += line.slice(i + 1, end);
      i = end;
      inWord = true;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === "\\" && j + 1 < line.length) word += line[++j];
        else if (line[j] === "$") j = expand(line, j, vars, (v) => (word += v));
        else word += line[j];
      }
      i = j;
      inWord = true;
    } else if (c === "$") {
      i = expand(line, i, vars, (v) => (word += v));
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

function expand(line: string, at: number, vars: Record<string, string>, add: (v: string) => void) {
  const match = /^\$(?:\{(\w+)\}|(\w+))/.exec(line.slice(at));
  if (!match) {
    add("$");
    return at;
  }
  const name = (match[1] ?? match[2]) as string;
  if (!(name in vars)) throw new Error(`$${name} is not set at: ${line}`);
  add(vars[name] as string);
  return at + match[0].length - 1;
}

/** `.a.b[0].c` of a JSON value (the jq paths the guide uses). */
function jqPath(value: unknown, path: string): unknown {
  let at: unknown = value;
  for (const [, key, index] of path.matchAll(/\.(\w+)|\[(\d+)\]/g)) {
    at =
      key !== undefined
        ? (at as Record<string, unknown>)?.[key]
        : (at as unknown[])?.[Number(index)];
  }
  return at;
}

/** Maps `keel` and `keel/<sub>` onto the sources, through package.json's exports. */
function sourceImports(text: string): string {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    exports: Record<string, { default?: string }>;
  };
  return text.replace(/from "keel(\/[\w-]+)?"/g, (_, sub: string | undefined) => {
    const target = pkg.exports[sub ? `.${sub}` : "."]?.default;
    if (!target)
      throw new Error(`the guide imports keel${sub ?? ""}, which package.json does not export`);
    const source = join(root, target.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts"));
    return `from ${JSON.stringify(source)}`;
  });
}

/** Runs a chapter's samples in a fresh project folder. */
async function runChapter(name: string, postgresUrl: string | undefined): Promise<void> {
  const project = mkdtempSync(join(tmpdir(), "keel-guide-"));
  made.push(project);
  mkdirSync(join(project, ".keel"));
  symlinkSync(join(root, "examples"), join(project, "examples"), "dir");
  let cwd = project;
  const vars: Record<string, string> = {};
  const env: Record<string, string> = {};
  let text = readFileSync(join(guide, name), "utf8");
  if (postgresUrl) text = text.replaceAll(GUIDE_POSTGRES_URL, postgresUrl);
  for (const block of runnableBlocks(text)) {
    const where = `${name}:${block.line}`;
    if (block.file) {
      const path = join(cwd, block.file);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, block.lang === "ts" ? sourceImports(block.body) : block.body);
      continue;
    }
    if (block.lang !== "sh")
      throw new Error(`${where}: a runnable ${block.lang} block needs file=`);
    const lines = block.body.replace(/\\\n\s*/g, "").split("\n");
    for (const raw of lines) {
      const comment = raw.match(/\s+#\s*(exit|expect)\s+(.*)$/);
      const line = (comment ? raw.slice(0, comment.index) : raw.replace(/^\s*#.*$/, "")).trim();
      if (line === "") continue;
      const expected = comment?.[1] === "exit" ? Number(comment[2]) : 0;
      const assign = /^(?:export\s+)?(\w+)=(.*)$/.exec(line);
      if (assign) {
        const [, key, value] = assign as unknown as [string, string, string];
        const sub = /^\$\((keel .*?)\s*\|\s*jq -r '([^']+)'\)$/.exec(value);
        if (sub) {
          const run = await keel(shellWords(sub[1] as string, vars).slice(1));
          expect(run.exitCode, `${where}: ${line}\n${run.stderr}`).toBe(0);
          vars[key] = String(jqPath(JSON.parse(run.stdout), sub[2] as string));
        } else {
          vars[key] = shellWords(value, vars).join(" ");
          env[key] = vars[key] as string;
        }
        continue;
      }
      const words = shellWords(line, vars);
      let out = "";
      if (words[0] === "cd") {
        cwd = resolve(cwd, words[1] ?? project);
        continue;
      }
      if (words[0] === "keel") {
        const run = await keel(words.slice(1));
        expect(run.exitCode, `${where}: ${line}\n${run.stdout}\n${run.stderr}`).toBe(expected);
        out = run.stdout + run.stderr;
      } else if (words[0] === "npx" && words[1] === "tsx") {
        out = await importScript(resolve(cwd, words[2] as string), words.slice(3));
      } else {
        throw new Error(`${where}: the guide runner does not know how to run: ${line}`);
      }
      if (comment?.[1] === "expect") expect(out, `${where}: ${line}`).toContain(comment[2]);
    }
  }

  async function keel(args: string[]) {
    return keelInProcess(args, { cwd, env });
  }

  /** `npx tsx <file> args`: the file imported here, in the project, with those arguments. */
  async function importScript(file: string, args: string[]): Promise<string> {
    const savedArgv = process.argv;
    const savedCwd = process.cwd();
    const savedEnv = { ...process.env };
    const out: string[] = [];
    const log = console.log;
    process.argv = [process.argv[0] as string, file, ...args];
    Object.assign(process.env, env);
    process.chdir(cwd);
    console.log = (...parts: unknown[]) => out.push(parts.map(String).join(" "));
    try {
      // A file the guide wrote is imported with `keel` mapped; the repository's examples as they are.
      const real = realpathSync(file);
      const target = real.startsWith(realRoot) ? real : `${file}.run-${made.length}.mts`;
      if (target !== real) writeFileSync(target, sourceImports(readFileSync(file, "utf8")));
      await import(`${pathToFileURL(target).href}?run=${Date.now()}`);
    } finally {
      console.log = log;
      process.argv = savedArgv;
      process.chdir(savedCwd);
      for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
      Object.assign(process.env, savedEnv);
    }
    return out.join("\n");
  }
}

const postgresUp = await postgresAvailable();
const chapters = readdirSync(guide)
  .filter((name) => name.endsWith(".md"))
  .sort();

describe("the user guide's samples run as printed", { timeout: 240_000 }, () => {
  it("has chapters with runnable samples", () => {
    const runnable = chapters.filter(
      (name) => runnableBlocks(readFileSync(join(guide, name), "utf8")).length > 0,
    );
    expect(runnable.length).toBeGreaterThanOrEqual(4);
  });

  it("parses shell words as a shell does", () => {
    expect(shellWords(`keel run a.json --input '{"a": 1}' --reason "ok $X"`, { X: "y" })).toEqual([
      "keel",
      "run",
      "a.json",
      "--input",
      '{"a": 1}',
      "--reason",
      "ok y",
    ]);
  });

  for (const name of chapters) {
    const text = readFileSync(join(guide, name), "utf8");
    if (runnableBlocks(text).length === 0) continue;
    const needsPostgres = text.includes(GUIDE_POSTGRES_URL);
    // Without a server the Postgres chapter is skipped, and says so (see test/support/postgres.ts).
    it.skipIf(needsPostgres && !postgresUp)(`${name}`, async () => {
      const url = needsPostgres ? (await createMigratedDatabase("guide")).url : undefined;
      await runChapter(name, url);
    });
  }
});
