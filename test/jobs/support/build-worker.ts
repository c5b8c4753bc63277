import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
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

/**
 * Bundles the real CLI (src/cli/run.ts) for the tests that signal a `keel worker` process. Each
 * source file keeps its own `import.meta.url`, so the migrations and assets are found in src/.
 */
export async function buildKeelCli(): Promise<string> {
  const outfile = join(repoRoot, "node_modules", ".cache", "keel-jobs", `keel-${process.pid}.mjs`);
  mkdirSync(dirname(outfile), { recursive: true });
  await build({
    entryPoints: [join(repoRoot, "src", "cli", "run.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    outfile,
    logLevel: "silent",
    plugins: [
      {
        name: "own-import-meta-url",
        setup(b) {
          b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => ({
            contents: readFileSync(args.path, "utf8").replaceAll(
              "import.meta.url",
              JSON.stringify(pathToFileURL(args.path).href),
            ),
            loader: "ts",
          }));
        },
      },
    ],
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
