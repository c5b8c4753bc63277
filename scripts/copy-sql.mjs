// Copies every .sql file under src/ to the same place under dist/: tsc compiles only TypeScript,
// and the store reads its migrations relative to the compiled module (src/store/migrations/…).
// The dashboard's assets (src/server/dashboard/assets/*.js|css) are copied the same way.
import { cpSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const src = join(root, "src");
const dist = join(root, "dist");

function walk(dir) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) walk(path);
    else if (
      entry.endsWith(".sql") ||
      (path.includes(join("dashboard", "assets")) && /\.(js|css)$/.test(entry))
    ) {
      const target = join(dist, relative(src, path));
      mkdirSync(dirname(target), { recursive: true });
      cpSync(path, target);
    }
  }
}

walk(src);
