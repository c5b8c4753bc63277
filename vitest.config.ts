import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Names the run; drops the run's Postgres databases together at its end (see docs/testing.md).
    globalSetup: ["test/support/global-setup.ts"],
  },
});
