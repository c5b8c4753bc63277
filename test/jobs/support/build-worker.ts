import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { build } from "esbuild";

const repoRoot = join(import.meta.dirname, "..", "..", "..");

/** Bundles job-worker.ts once per test process (a bundled child starts far faster than tsx). */
export async function buildJobWorker(): Promise<string> {
  const outfile = join(
    repoRoot,
    "node_modules",
    ".cache",
    "keel-jobs",
    `job-worker-${process.pid}.mjs`,
  );
  mkdirSync(dirname(outfile), { recursive: true });
  await build({
    entryPoints: [join(import.meta.dirname, "job-worker.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    outfile,
    logLevel: "silent",
  });
  return outfile;
}

/** The environment a bundled worker needs to find the kernel migrations. */
export function workerEnv(dialect: "sqlite" | "postgres"): NodeJS.ProcessEnv {
  return {
    ...process.env,
    KEEL_MIGRATIONS_DIR: join(repoRoot, "src", "store", "migrations", dialect),
  };
}
