import { join } from "node:path";
import { bundleChild } from "../../support/child-bundle.js";

const repoRoot = join(import.meta.dirname, "..", "..", "..");

/** Bundles job-worker.ts once per test process (a bundled child starts far faster than tsx). */
export function buildJobWorker(): Promise<string> {
  return bundleChild(join(import.meta.dirname, "job-worker.ts"));
}

/** The environment a bundled worker needs to find the kernel migrations. */
export function workerEnv(dialect: "sqlite" | "postgres"): NodeJS.ProcessEnv {
  return {
    ...process.env,
    KEEL_MIGRATIONS_DIR: join(repoRoot, "src", "store", "migrations", dialect),
  };
}
