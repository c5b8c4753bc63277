/**
 * The layer rule (`npm run lint` runs dependency-cruiser with .dependency-cruiser.cjs): proven on
 * a throwaway tree that an upward import and an import cycle are rejected, and that a downward
 * import passes.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = new URL("../../", import.meta.url).pathname;
const made: string[] = [];

/** Writes `files` under a fresh directory and runs the project's dependency-cruiser config on it. */
function cruise(files: Record<string, string>): { status: number | null; violations: string[] } {
  const dir = mkdtempSync(join(tmpdir(), "keel-layers-"));
  made.push(dir);
  const tsconfig = { compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext" } };
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(tsconfig));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  // One run with the reporter `npm run lint` uses: its exit code is what fails the lint, and its
  // lines name the violations (a second run for a JSON report cost another 0.7 s of CPU a case).
  const run = spawnSync(
    join(root, "node_modules/.bin/depcruise"),
    ["src", "--config", join(root, ".dependency-cruiser.cjs"), "--output-type", "err"],
    { cwd: dir, encoding: "utf8" },
  );
  return { status: run.status, violations: errViolations(run.stdout) };
}

/**
 * The violations the `err` reporter prints, as `rule: from -> to`: `  error rule: from → to`, or
 * for a cycle `  error no-circular: from →` with the cycle's next module on the following line.
 */
function errViolations(output: string): string[] {
  const lines = output.split("\n");
  const violations: string[] = [];
  lines.forEach((line, i) => {
    const found = /^\s*error (\S+): (\S+) →(?: (\S+))?\s*$/.exec(line);
    if (found === null) return;
    const to = found[3] ?? lines[i + 1]?.replace("→", "").trim() ?? "";
    violations.push(`${found[1]}: ${found[2]} -> ${to}`);
  });
  return violations;
}

afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe("the layer rule of npm run lint", () => {
  it("rejects an import up the layers (core importing graph)", () => {
    const result = cruise({
      "src/core/upward.ts":
        'import { engine } from "../graph/engine.js";\nexport const up = engine;\n',
      "src/graph/engine.ts": "export const engine = 1;\n",
    });
    expect(result.violations).toEqual(["layer-core: src/core/upward.ts -> src/graph/engine.ts"]);
    expect(result.status).not.toBe(0);
  });

  it("rejects an import cycle", () => {
    const result = cruise({
      "src/graph/a.ts": 'import { b } from "./b.js";\nexport const a = () => b;\n',
      "src/graph/b.ts": 'import { a } from "./a.js";\nexport const b = () => a;\n',
    });
    expect(result.violations).toEqual(["no-circular: src/graph/a.ts -> src/graph/b.ts"]);
    expect(result.status).not.toBe(0);
  });

  it("accepts an import down the layers", () => {
    const result = cruise({
      "src/graph/engine.ts": 'import { id } from "../core/id.js";\nexport const engine = id;\n',
      "src/core/id.ts": "export const id = 1;\n",
    });
    expect(result).toEqual({ status: 0, violations: [] });
  });
});
