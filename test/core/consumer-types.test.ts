/**
 * A TypeScript consumer type-checks against the package's declarations with `skipLibCheck:
 * false`: the declarations are built (declaration-only, incremental, into a consumer project's
 * `node_modules/keel`), then a consumer importing every subpath export is checked in process.
 * The consumer's `node_modules` holds only what an install of the package brings (its
 * dependencies and its peer), so a type from a dev-only package in a public `.d.ts` fails here.
 * Where `npm run build` left declarations newer than every source file (CI builds at install),
 * those are copied instead of emitted again: the emit is most of this file's time.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/core/index.js";

const root = new URL("../../", import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  name: string;
  exports: Record<string, unknown>;
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};
// One consumer per checkout, kept between runs: the incremental build re-checks only what changed.
const consumer = join(tmpdir(), `keel-consumer-${sha256Hex(root).slice(0, 12)}`);
const installed = join(consumer, "node_modules", pkg.name);

function format(diagnostics: readonly ts.Diagnostic[]): string[] {
  return diagnostics.map((d) => {
    const text = ts.flattenDiagnosticMessageText(d.messageText, "\n");
    if (!d.file || d.start === undefined) return text;
    const { line } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${d.file.fileName.replace(consumer, "<consumer>")}:${line + 1}: ${text}`;
  });
}

/** Emits the declarations as `npm run build` does, into the consumer's copy of the package. */
function buildDeclarations(): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(root, "tsconfig.build.json"),
    {
      outDir: join(installed, "dist"),
      declaration: true,
      emitDeclarationOnly: true,
      sourceMap: false,
      noEmit: false,
      incremental: true,
      tsBuildInfoFile: join(consumer, "keel.tsbuildinfo"),
    },
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  if (!parsed) throw new Error("tsconfig.build.json could not be read");
  const program = ts.createIncrementalProgram({
    rootNames: parsed.fileNames,
    options: parsed.options,
  });
  const emitted = program.emit();
  return format([...program.getSyntacticDiagnostics(), ...emitted.diagnostics]);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** Whether `dist/` holds a declaration newer than each source file (the build is current). */
function builtDeclarationsCurrent(): boolean {
  const src = join(root, "src");
  return sourceFiles(src).every((file) => {
    const declaration = join(root, "dist", relative(src, file).replace(/\.ts$/, ".d.ts"));
    return existsSync(declaration) && statSync(declaration).mtimeMs >= statSync(file).mtimeMs;
  });
}

/** Copies the build's declarations (only: no JavaScript) into the consumer's copy of the package. */
function copyBuiltDeclarations(): string[] {
  rmSync(join(installed, "dist"), { recursive: true, force: true });
  // The incremental build's record would otherwise say the copied-over outputs are its own.
  rmSync(join(consumer, "keel.tsbuildinfo"), { force: true });
  cpSync(join(root, "dist"), join(installed, "dist"), {
    recursive: true,
    filter: (path) => path.endsWith(".d.ts") || statSync(path).isDirectory(),
  });
  return [];
}

/** Links what an install brings: the dependencies, the (optional) peer, and Node's types. */
function linkDependencies(): void {
  const names = [
    ...Object.keys(pkg.dependencies),
    ...Object.keys(pkg.peerDependencies),
    "@types/node",
  ];
  for (const name of names) {
    const link = join(consumer, "node_modules", name);
    if (existsSync(link)) continue;
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(root, "node_modules", name), link, "dir");
  }
  writeFileSync(join(installed, "package.json"), readFileSync(join(root, "package.json")));
}

const subpaths = Object.keys(pkg.exports)
  .filter((key) => key !== "./package.json")
  .map((key) => (key === "." ? pkg.name : `${pkg.name}/${key.slice(2)}`));

describe("consumers type-check against dist/*.d.ts without skipLibCheck", {
  timeout: 300_000,
}, () => {
  let built: string[] = [];
  beforeAll(() => {
    mkdirSync(installed, { recursive: true });
    built = builtDeclarationsCurrent() ? copyBuiltDeclarations() : buildDeclarations();
    linkDependencies();
  }, 300_000);

  it("builds the declarations", () => {
    expect(built).toEqual([]);
    expect(existsSync(join(installed, "dist", "index.d.ts"))).toBe(true);
  });

  it("a public .d.ts imports only packages an install brings", () => {
    const allowed = new Set([
      ...Object.keys(pkg.dependencies),
      ...Object.keys(pkg.peerDependencies),
      pkg.name,
    ]);
    const foreign = new Set<string>();
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith(".d.ts")) {
          const text = readFileSync(path, "utf8");
          for (const [, spec] of text.matchAll(/(?:from |import\()"([^".][^"]*)"/g)) {
            if (!spec || spec.startsWith("node:")) continue;
            const name = spec.startsWith("@")
              ? spec.split("/").slice(0, 2).join("/")
              : spec.split("/")[0];
            if (name && !allowed.has(name)) foreign.add(`${name} (${path.replace(installed, "")})`);
          }
        }
      }
    };
    walk(join(installed, "dist"));
    expect([...foreign]).toEqual([]);
  });

  it("a consumer importing every subpath export type-checks with skipLibCheck: false", () => {
    expect(subpaths.length).toBeGreaterThan(10);
    const entry = join(consumer, "index.ts");
    writeFileSync(
      entry,
      `${subpaths.map((path, i) => `import * as m${i} from "${path}";`).join("\n")}
export const modules = [${subpaths.map((_, i) => `m${i}`).join(", ")}];
export const graph = new m0.StateGraph(m0.Annotation.Root({ n: m0.Annotation<number>() }));
`,
    );
    const program = ts.createProgram([entry], {
      strict: true,
      skipLibCheck: false,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: ["node"],
      typeRoots: [join(consumer, "node_modules", "@types")],
    });
    expect(format(ts.getPreEmitDiagnostics(program))).toEqual([]);
  });
});
