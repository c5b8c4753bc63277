import { defineConfig } from "vitest/config";

/**
 * Test files that must run in a fresh module graph: they assert what a process does once (a
 * warning per process, an application module loaded once, which packages a graph loads) or
 * lean on process-wide clocks (checkpoint ids; `newId`'s last millisecond, which a file that set
 * the clock forward leaves ahead of the wall clock). Every other file shares its worker's modules
 * with the files before it, which saves loading Keel afresh per file (a third of the suite's
 * time when every file was isolated). See docs/testing.md.
 */
const ISOLATED = [
  "test/checkpoint/**/*.test.ts",
  "test/runtime/**/*.test.ts",
  "test/agents/no-langchain.test.ts",
  "test/core/core.test.ts",
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Vitest's default on a 2-core box is one worker (cores - 1), which leaves a core idle while a
    // test waits on fsync, Postgres or a child process. KEEL_TEST_WORKERS overrides.
    maxWorkers: Number(process.env.KEEL_TEST_WORKERS ?? 2),
    // Names the run; drops the run's Postgres databases together at its end (see docs/testing.md).
    globalSetup: ["test/support/global-setup.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "shared",
          include: ["test/**/*.test.ts", "src/**/*.test.ts"],
          exclude: ISOLATED,
          isolate: false,
        },
      },
      { extends: true, test: { name: "isolated", include: ISOLATED } },
    ],
  },
});
