/**
 * The skill-map conformance cases, run as the spec's conformance README says: a fresh scope per
 * case with its fixture copied in, the verb invoked, every assertion checked. The spec's own two
 * cases (basic-scan, kernel-empty-boot: not shipped in the reference copy, so written here from
 * the spec's case inventory), the 21 cases of ../shared/reference/skill-map-conformance/cases
 * and its 10 reference-only cases, read at test time. Most run in this process (the real
 * program); a few run as real `sm` child processes.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  type ConformanceCase,
  failedAssertions,
  invokeChild,
  invokeInProcess,
  provisionScope,
  readCases,
  removeScope,
  SUITE_DIR,
  schemaProblems,
} from "./conformance-runner.js";

const FIXTURES = join(SUITE_DIR, "fixtures");

/** The spec's own cases (its conformance README's inventory). */
const SPEC_CASES: ConformanceCase[] = [
  {
    id: "basic-scan",
    description:
      "Scanning minimal-claude detects exactly five nodes, one per file, with no issues.",
    fixture: "minimal-claude",
    invoke: { verb: "scan", flags: ["--json"] },
    assertions: [
      { type: "exit-code", value: 0 },
      { type: "json-path", path: "$.schemaVersion", equals: 1 },
      { type: "json-path", path: "$.stats.nodesCount", equals: 5 },
      { type: "json-path", path: "$.stats.issuesCount", equals: 0 },
      { type: "json-path", path: "$.nodes.length", equals: 5 },
    ],
  },
  {
    id: "kernel-empty-boot",
    description:
      "With every adapter, detector and rule disabled, an empty scope scans to an empty, valid result.",
    setup: { disableAllAdapters: true, disableAllDetectors: true, disableAllRules: true },
    invoke: { verb: "scan", flags: ["--json"] },
    assertions: [
      { type: "exit-code", value: 0 },
      { type: "json-path", path: "$.schemaVersion", equals: 1 },
      { type: "json-path", path: "$.stats.nodesCount", equals: 0 },
      { type: "json-path", path: "$.stats.linksCount", equals: 0 },
      { type: "json-path", path: "$.stats.issuesCount", equals: 0 },
      { type: "json-path", path: "$.nodes.length", equals: 0 },
      { type: "json-path", path: "$.links.length", equals: 0 },
      { type: "json-path", path: "$.issues.length", equals: 0 },
    ],
  },
];

/**
 * Reference-only cases Keel deliberately differs from (docs/catalog.md, "Where Keel differs from
 * the reference"), with the assertions Keel meets instead.
 */
const DELIBERATE: Record<string, { why: string; assertions: ConformanceCase["assertions"] }> = {
  "ref-trigger-separator-quirk": {
    why: "a command named `build deploy` can only be invoked as /build-deploy; separators are not a different spelling",
    assertions: [
      { type: "exit-code", value: 0 },
      { type: "json-path", path: "$.stats.nodesCount", equals: 2 },
      { type: "json-path", path: "$.stats.linksCount", equals: 1 },
      { type: "json-path", path: "$.stats.issuesCount", equals: 0 },
    ],
  },
};

const CHILD_PROCESS_CASES = new Set(["basic-scan", "trigger-collision-case-mismatch"]);

const suites: [string, ConformanceCase[]][] = [
  ["spec", SPEC_CASES],
  ["cases", readCases(join(SUITE_DIR, "cases"))],
  ["reference-only", readCases(join(SUITE_DIR, "reference-only/cases"))],
];

const results: { id: string; passed: boolean }[] = [];
afterAll(() => {
  const passed = results.filter((r) => r.passed).length;
  console.log(`conformance: ${passed}/${results.length} cases pass`);
});

describe("skill-map conformance cases", () => {
  it("reads 2 spec cases, 21 cases and 10 reference-only cases, each valid against the case schema", () => {
    expect(suites.map(([, cases]) => cases.length)).toEqual([2, 21, 10]);
    for (const [, cases] of suites) {
      for (const testCase of cases)
        expect(schemaProblems("conformance-case.schema.json", testCase), testCase.id).toEqual([]);
    }
  });

  for (const [suite, cases] of suites) {
    describe(suite, () => {
      for (const original of cases) {
        const deliberate = DELIBERATE[original.id];
        const testCase = deliberate ? { ...original, assertions: deliberate.assertions } : original;
        const child = CHILD_PROCESS_CASES.has(testCase.id);
        const label = `${testCase.id}${child ? " (child process)" : ""}${deliberate ? ` (Keel differs: ${deliberate.why})` : ""}`;
        it(label, async () => {
          const scope = provisionScope(testCase, FIXTURES);
          try {
            const run = child
              ? invokeChild(testCase, scope)
              : await invokeInProcess(testCase, scope);
            const failures = failedAssertions(testCase, run, scope, FIXTURES);
            results.push({ id: testCase.id, passed: failures.length === 0 });
            expect(failures, `${testCase.id}\nstderr: ${run.stderr}`).toEqual([]);
            if (testCase.invoke.verb === "scan" && testCase.invoke.flags?.includes("--json")) {
              expect(schemaProblems("scan-result.schema.json", JSON.parse(run.stdout))).toEqual([]);
            }
          } finally {
            removeScope(scope);
          }
        });
      }
    });
  }
});
