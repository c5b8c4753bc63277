/**
 * Keel's scan of each conformance fixture against the reference implementation's full scan
 * result (../shared/reference/skill-map-conformance/golden), compared as sets (the reference's
 * order is its directory read order). The kernel is called directly, as the spec's architecture
 * says conformance tests may. Where Keel follows the spec rather than the reference, the field is
 * left out of the comparison, and docs/catalog.md ("Where Keel differs from the reference") says why:
 * - `frontmatterHash`: the spec says sha256 of the raw block; the reference hashes re-emitted YAML;
 * - `title` of a node without `name`: the spec falls back to the file name; the reference gives null;
 * - `data.errors` of frontmatter-invalid: Keel's problems are `{ path, message }` (JSON Pointer);
 * - `tokens` of a file starting with a byte-order mark (frontmatter-bom): gpt-tokenizer's
 *   pre-tokenizer counts U+FEFF as whitespace (JavaScript's \s), tiktoken's does not: one token more;
 * - the trigger-separator-normalized fixture: Keel does not treat /build-deploy as a different
 *   spelling of `build deploy` (no trigger-collision, exit 0).
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  builtInRegistry,
  type CatalogIssue,
  type CatalogLink,
  type CatalogNode,
  runScan,
  type ScanResult,
} from "../../src/catalog/index.js";
import { SUITE_DIR } from "./conformance-runner.js";

interface Golden {
  fixture: string;
  exitCode: number;
  scanResult: ScanResult;
}

const GOLDEN_DIR = join(SUITE_DIR, "golden");
const goldens = readdirSync(GOLDEN_DIR)
  .filter((name) => name.endsWith(".scan-result.json"))
  .sort()
  .map((name) => ({
    name,
    golden: JSON.parse(readFileSync(join(GOLDEN_DIR, name), "utf8")) as Golden,
  }));

const node = (n: CatalogNode, omitTitle: boolean, omitTokens = false) => ({
  path: n.path,
  kind: n.kind,
  adapter: n.adapter,
  ...(omitTitle ? {} : { title: n.title }),
  description: n.description,
  stability: n.stability,
  version: n.version,
  author: n.author,
  frontmatter: n.frontmatter,
  bodyHash: n.bodyHash,
  bytes: n.bytes,
  ...(omitTokens ? {} : { tokens: n.tokens ?? null }),
  linksOutCount: n.linksOutCount,
  linksInCount: n.linksInCount,
  externalRefsCount: n.externalRefsCount,
});
const link = (l: CatalogLink) => ({
  source: l.source,
  target: l.target,
  kind: l.kind,
  confidence: l.confidence,
  sources: [...l.sources].sort(),
  trigger: l.trigger ?? null,
});
const issue = (i: CatalogIssue) => {
  const { errors: _errors, ...data } = i.data ?? {};
  return { ruleId: i.ruleId, severity: i.severity, nodeIds: i.nodeIds, data };
};
const asSet = (items: unknown[]) => items.map((i) => JSON.stringify(i)).sort();

describe("scan results against the reference's golden results, as sets", () => {
  it("finds every golden file (34)", () => {
    expect(goldens).toHaveLength(34);
  });
  for (const { name, golden } of goldens) {
    it(name, async () => {
      const strict = name.includes("--strict");
      const root = mkdtempSync(join(tmpdir(), "keel-golden-"));
      try {
        const fixture = join(SUITE_DIR, "fixtures", golden.fixture.replace(/--strict$/, ""));
        if (existsSync(fixture)) cpSync(fixture, root, { recursive: true });
        const { result } = await runScan({ root, registry: builtInRegistry(), strict });
        const expected = golden.scanResult;
        let expectedIssues = expected.issues;
        let expectedExit = golden.exitCode;
        if (golden.fixture.startsWith("trigger-separator-normalized")) {
          expectedIssues = expectedIssues.filter((i) => i.ruleId !== "trigger-collision");
          expectedExit = 0;
        }
        // Compare titles only where the reference has one (see the file's comment).
        const titled = new Set(expected.nodes.filter((n) => n.title !== null).map((n) => n.path));
        const omitTitle = (n: CatalogNode) => !titled.has(n.path);
        const bom = golden.fixture.startsWith("frontmatter-bom");
        expect(asSet(result.nodes.map((n) => node(n, omitTitle(n), bom)))).toEqual(
          asSet(expected.nodes.map((n) => node(n, omitTitle(n), bom))),
        );
        expect(asSet(result.links.map(link))).toEqual(asSet(expected.links.map(link)));
        expect(asSet(result.issues.map(issue))).toEqual(asSet(expectedIssues.map(issue)));
        expect(result.issues.some((i) => i.severity === "error") ? 1 : 0).toBe(expectedExit);
        expect(result.stats).toMatchObject({
          nodesCount: expected.stats.nodesCount,
          linksCount: expected.stats.linksCount,
        });
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    });
  }
});
