/**
 * `npm run bench [name…]`: runs every benchmark folder in bench/ (each has a `main.ts`), or only
 * the named ones, one child process each so they do not share a heap or a JIT profile.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

const root = new URL(".", import.meta.url).pathname;
const requested = process.argv.slice(2);
const suites = readdirSync(root, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(root, entry.name, "main.ts")))
  .map((entry) => entry.name)
  .filter((name) => requested.length === 0 || requested.includes(name))
  .sort();

if (suites.length === 0) {
  console.error(`No benchmark matches ${requested.join(", ") || "(none present)"}.`);
  process.exit(2);
}

let failed = false;
for (const suite of suites) {
  console.log(`\n# bench/${suite}`);
  const result = spawnSync(
    process.execPath,
    ["--expose-gc", "--import", "tsx", join(root, suite, "main.ts")],
    { stdio: "inherit" },
  );
  if (result.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
