/**
 * One esbuild bundle per child-process script, for the tests whose subject is a real process
 * (crash trials, leases, signals). The bundle holds the script, Keel's sources and the packages
 * they import — everything but native addons — so a child starts with plain `node` and one file
 * to load: about half the CPU of resolving the same packages from node_modules (0.2 s against
 * 0.4 s a child here), which counts in suites that start a hundred children or more.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild";

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Packages that load a compiled addon (or may): left to node_modules. */
const NATIVE = ["better-sqlite3", "pg-native", "cpu-features", "ssh2", "fsevents"];

export interface ChildBundleOptions {
  /**
   * Keep each Keel source file's own `import.meta.url`, so code that finds files beside it
   * (the kernel migrations, the dashboard's assets) finds them in src/ as when run unbundled.
   */
  ownImportMetaUrl?: boolean;
}

const bundles = new Map<string, Promise<string>>();

/**
 * Bundles `entry` (an absolute .ts path) once per test process into node_modules/.cache, where
 * the native packages still resolve, and returns the bundle's path.
 *
 * @example
 * const worker = await bundleChild(join(here, "worker.ts"));
 * spawn(process.execPath, [worker, db]);
 */
export function bundleChild(entry: string, options: ChildBundleOptions = {}): Promise<string> {
  const key = `${entry}\u0000${options.ownImportMetaUrl === true}`;
  let bundle = bundles.get(key);
  if (bundle === undefined) {
    bundle = bundleOnce(entry, options);
    bundles.set(key, bundle);
  }
  return bundle;
}

/**
 * The real CLI (src/cli/run.ts) bundled, for tests where `keel` must be a process of its own
 * (signals, fd 0 read synchronously): `node <bundle> <args>` as `bin/keel.js <args>`.
 */
export function bundleKeelCli(): Promise<string> {
  return bundleChild(join(repoRoot, "src", "cli", "run.ts"), { ownImportMetaUrl: true });
}

async function bundleOnce(entry: string, options: ChildBundleOptions): Promise<string> {
  // Named by entry and options: a file that reloads this module (an isolated test file) rebuilds
  // the same bundle in place instead of colliding with another entry's.
  const key = createHash("sha1").update(`${entry}\u0000${options.ownImportMetaUrl === true}`);
  const name = `${basename(entry, ".ts")}-${key.digest("hex").slice(0, 8)}-${process.pid}.mjs`;
  const outfile = join(repoRoot, "node_modules", ".cache", "keel-tests", name);
  mkdirSync(dirname(outfile), { recursive: true });
  await build({
    entryPoints: [entry],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    external: NATIVE,
    // Bundled CommonJS packages call `require` for node's built-ins, which ESM lacks.
    banner: {
      js: "import { createRequire as __keelRequire } from 'node:module'; const require = __keelRequire(import.meta.url);",
    },
    outfile,
    logLevel: "silent",
    plugins: options.ownImportMetaUrl ? [ownImportMetaUrl] : [],
  });
  process.once("exit", () => rmSync(outfile, { force: true }));
  return outfile;
}

const ownImportMetaUrl: Plugin = {
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
};
