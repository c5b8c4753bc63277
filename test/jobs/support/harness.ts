import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { sha256Hex } from "../../../src/core/index.js";
import { type JobsContext, openJobsContext } from "../../../src/jobs/index.js";
import {
  type NodeKind,
  openStore,
  type Store,
  type StoreLocation,
} from "../../../src/store/index.js";
import { createMigratedDatabase, migratedSqliteFile } from "../../support/templates.js";

/** One project with a store: its folder (the root), its `.keel`, the `--db` value. */
export interface JobsProject {
  readonly dir: string;
  readonly keelDir: string;
  readonly db: string;
  readonly location: StoreLocation;
  readonly store: Store;
  ctx(options?: Parameters<typeof openJobsContext>[1]): Promise<JobsContext>;
}

/** A dialect for the jobs suites: fresh projects, and cleanup of everything made. */
export interface JobsHarness {
  readonly dialect: "sqlite" | "postgres";
  project(label: string): Promise<JobsProject>;
  cleanup(): Promise<void>;
}

function harness(dialect: "sqlite" | "postgres"): JobsHarness {
  const dirs: string[] = [];
  const stores: Store[] = [];
  const drops: (() => Promise<void>)[] = [];
  return {
    dialect,
    async project(label) {
      const dir = mkdtempSync(join(tmpdir(), `keel-jobs-${label}-`));
      dirs.push(dir);
      const keelDir = join(dir, ".keel");
      mkdirSync(keelDir, { recursive: true });
      let location: StoreLocation;
      let db: string;
      if (dialect === "sqlite") {
        db = join(keelDir, "keel.db");
        await migratedSqliteFile(db);
        location = { dialect, path: db, keelDir };
      } else {
        // A copy of the migrated template (test/support/templates.ts) per project.
        const database = await createMigratedDatabase(`jobs_${label}`);
        drops.push(database.drop);
        db = database.url;
        location = { dialect, url: db, keelDir };
      }
      const store = await openStore({ location, backupBeforeMigrate: false });
      stores.push(store);
      return {
        dir,
        keelDir,
        db,
        location,
        store,
        ctx: (options) => openJobsContext(store, options),
      };
    },
    async cleanup() {
      for (const store of stores) await store.close().catch(() => {});
      for (const drop of drops) await drop().catch(() => {});
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const sqliteJobs = (): JobsHarness => harness("sqlite");
export const postgresJobs = (): JobsHarness => harness("postgres");

/**
 * Puts a node in the project: its file on disk and its `scan_nodes` row (what `keel scan` would
 * write), with the body and front-matter hashes of the text.
 */
export async function addNode(
  project: JobsProject,
  path: string,
  kind: NodeKind,
  body: string,
  frontmatter = `name: ${path}`,
): Promise<void> {
  const text = `---\n${frontmatter}\n---\n${body}`;
  const file = join(project.dir, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  const row = {
    path,
    kind,
    adapter: "claude",
    title: null,
    description: null,
    stability: null,
    version: null,
    author: null,
    frontmatter_json: JSON.stringify({ name: path }),
    body_hash: sha256Hex(body),
    frontmatter_hash: sha256Hex(frontmatter),
    bytes_frontmatter: Buffer.byteLength(frontmatter),
    bytes_body: Buffer.byteLength(body),
    bytes_total: Buffer.byteLength(text),
    tokens_frontmatter: null,
    tokens_body: null,
    tokens_total: null,
    scanned_at: Date.now(),
  };
  await project.store.kysely
    .insertInto("scan_nodes")
    .values(row)
    .onConflict((oc) =>
      oc.column("path").doUpdateSet({
        body_hash: row.body_hash,
        frontmatter_hash: row.frontmatter_hash,
        bytes_body: row.bytes_body,
        bytes_total: row.bytes_total,
      }),
    )
    .execute();
}

/** A report that meets report-base and the skill summary. */
export const GOOD_SKILL_REPORT = {
  whatItDoes: "Greets the user.",
  confidence: 0.9,
  safety: {
    injectionDetected: false,
    injectionType: null,
    injectionDetails: null,
    contentQuality: "clean",
  },
};
