/**
 * bench/catalog: `keel scan` over a generated tree of 10,000 realistic agent files (frontmatter,
 * 1–4 KB bodies with slash commands, @-mentions, URLs and frontmatter references), on SQLite.
 * Targets (issue 15, this 2-core machine): full cold scan with tokens ≤ 2 s; `--changed` with
 * nothing changed ≤ 150 ms; with 10 files changed ≤ 250 ms; `keel check` from the database
 * ≤ 50 ms. Per-phase times (walk, parse, tokenize, detect, rules, write) printed for each.
 * FILES=n overrides the tree size.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  builtInRegistry,
  loadIssues,
  type ScanOutcome,
  scanScope,
} from "../../src/catalog/index.js";
import { openStore } from "../../src/store/index.js";

const FILES = Number(process.env.FILES ?? 10_000);
const FOLDERS = [
  ".claude/agents",
  ".claude/commands",
  ".claude/skills",
  ".claude/hooks",
  "docs/notes",
];
const WORDS =
  "the agent reviews each change before deploy and records why the plan moved forward with care".split(
    " ",
  );

let seed = 42;
const random = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;

function file(i: number): [string, string] {
  const folder = FOLDERS[i % FOLDERS.length] as string;
  const path = folder === ".claude/skills" ? `${folder}/s${i}/SKILL.md` : `${folder}/f${i}.md`;
  const target = Math.floor(random() * FILES);
  const size = 1024 + Math.floor(random() * 3072);
  let body = "";
  while (body.length < size) {
    const sentence = Array.from({ length: 12 }, () => pick(WORDS)).join(" ");
    const extra =
      random() < 0.3
        ? ` Run /cmd-${Math.floor(random() * FILES)}.`
        : random() < 0.3
          ? ` Ask @agent-${Math.floor(random() * 50)}.`
          : random() < 0.1
            ? ` See https://example.com/p/${i}.`
            : "";
    body += `${sentence[0]?.toUpperCase()}${sentence.slice(1)}.${extra}\n`;
  }
  const frontmatter = `---\nname: cmd-${i}\ndescription: Generated node ${i}\nmetadata:\n  version: 1.0.${i % 10}\n  related:\n    - ${FOLDERS[target % FOLDERS.length]}/f${target}.md\n---\n`;
  return [path, `${frontmatter}# Node ${i}\n\n${body}`];
}

const ms = (v: number) => `${v.toFixed(0).padStart(6)} ms`;
function report(label: string, total: number, outcome: ScanOutcome | null, target?: number) {
  const t = outcome?.timings;
  const phases = t
    ? `walk ${t.walk.toFixed(0)} · parse ${t.parse.toFixed(0)} · tokenize ${t.tokenize.toFixed(0)} · detect ${t.detect.toFixed(0)} · rules ${t.rules.toFixed(0)} · write ${t.write.toFixed(0)} · reused ${outcome?.reused}`
    : "";
  const verdict =
    target === undefined
      ? ""
      : total <= target
        ? `  (target ≤ ${target} ms: met)`
        : `  (target ≤ ${target} ms: MISSED)`;
  console.log(`${label.padEnd(34)} ${ms(total)}${verdict}\n${"".padEnd(35)}${phases}`);
}

const root = mkdtempSync(join(tmpdir(), "keel-bench-catalog-"));
try {
  const past = Date.now() / 1000 - 3600;
  for (let i = 0; i < FILES; i++) {
    const [path, text] = file(i);
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
    utimesSync(join(root, path), past, past);
  }
  console.log(`${FILES} files generated under ${root}`);
  const store = await openStore({ db: join(root, ".keel/keel.db") });
  const registry = builtInRegistry();
  const timed = async (fn: () => Promise<ScanOutcome>) => {
    const start = performance.now();
    const outcome = await fn();
    return { total: performance.now() - start, outcome };
  };
  const cold = await timed(() => scanScope(store, { root, registry }));
  report("full scan, cold (tokens)", cold.total, cold.outcome, 2000);
  const warm = await timed(() => scanScope(store, { root, registry }));
  report("full scan, warm (tokens)", warm.total, warm.outcome);
  const noTokens = await timed(() =>
    scanScope(store, { root, registry, config: { scan: { tokenize: false } } }),
  );
  report("full scan, scan.tokenize false", noTokens.total, noTokens.outcome);
  await scanScope(store, { root, registry });
  const unchanged: number[] = [];
  let last: ScanOutcome | null = null;
  for (let round = 0; round < 3; round++) {
    const run = await timed(() => scanScope(store, { root, registry, mode: { kind: "changed" } }));
    unchanged.push(run.total);
    last = run.outcome;
  }
  report("--changed, nothing changed (median)", unchanged.sort((a, b) => a - b)[1] ?? 0, last, 150);
  for (let i = 0; i < 10; i++) {
    const [path, text] = file(i * 997);
    writeFileSync(join(root, path), `${text}\nEdited /cmd-${i}.\n`);
    utimesSync(join(root, path), past + 60, past + 60);
  }
  const changed = await timed(() =>
    scanScope(store, { root, registry, mode: { kind: "changed" } }),
  );
  report("--changed, 10 files changed", changed.total, changed.outcome, 250);
  const checks: number[] = [];
  for (let round = 0; round < 5; round++) {
    const start = performance.now();
    await loadIssues(store);
    checks.push(performance.now() - start);
  }
  report("keel check from the database (median)", checks.sort((a, b) => a - b)[2] ?? 0, null, 50);
  console.log(`issues stored: ${(await loadIssues(store))?.length}`);
  await store.close();
} finally {
  rmSync(root, { recursive: true, force: true });
}
