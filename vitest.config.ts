import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Vitest's default on a 2-core box is one worker (cores - 1), which leaves a core idle while a
    // test waits on fsync, Postgres or a child process. KEEL_TEST_WORKERS overrides.
    maxWorkers: Number(process.env.KEEL_TEST_WORKERS ?? 2),
    // Names the run; drops the run's Postgres databases together at its end (see docs/testing.md).
    globalSetup: ["test/support/global-setup.ts"],
  },
});
