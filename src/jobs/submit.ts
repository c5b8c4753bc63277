import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { KeelError } from "../core/index.js";
import { resolveTtl } from "./config.js";
import { contentHash } from "./content-hash.js";
import { absoluteIn, type JobsContext, storedPath } from "./context.js";
import { newJobId, newNonce } from "./ids.js";
import { renderJobFile } from "./render-job-file.js";
import { findLiveDuplicate } from "./sql/get-job.js";
import { insertJob } from "./sql/insert-job.js";
import { type JobWithNonce, jobWithNonceFromRow } from "./types.js";

/** What `keel job submit` asks for. */
export interface SubmitRequest {
  readonly actionId: string;
  readonly nodePath: string;
  /** Queue even when a live job has the same duplicate key. */
  readonly force?: boolean;
  /** Seconds; beats every other TTL source. */
  readonly ttlSeconds?: number;
  readonly priority?: number;
  readonly submittedBy?: string | null;
}

const MAX_ID_ATTEMPTS = 50;

/**
 * Submits one job (dispatch-lifecycle.md, "Submit"): resolves the action and the catalog node,
 * computes the content hash, refuses a live duplicate (JOB_DUPLICATE, exit 3, the existing id in
 * the message and details) unless `force`, resolves the TTL, draws a 256-bit nonce, renders the
 * job file with the canonical preamble and inserts the queued row. The unique index re-checks the
 * duplicate atomically, so two racing submits queue one job.
 *
 * @example
 * const job = await submitJob(ctx, { actionId: "skill-summarizer", nodePath: "skills/a.md" });
 */
export async function submitJob(ctx: JobsContext, request: SubmitRequest): Promise<JobWithNonce> {
  const action = ctx.actions.get(request.actionId);
  const manifest = action.manifest;
  const db = ctx.store.kysely;
  const node = await db
    .selectFrom("scan_nodes")
    .select(["path", "kind", "body_hash", "frontmatter_hash"])
    .where("path", "=", request.nodePath)
    .executeTakeFirst();
  if (!node) {
    throw new KeelError("CATALOG_NODE_NOT_FOUND", `No node "${request.nodePath}" in the catalog.`, {
      details: { node: request.nodePath },
      hint: "Run `keel scan` to refresh the catalog, and give the node's path relative to the project root.",
    });
  }
  const key = {
    actionId: manifest.id,
    actionVersion: manifest.version,
    nodeId: node.path,
    contentHash: contentHash({
      actionId: manifest.id,
      actionVersion: manifest.version,
      bodyHash: node.body_hash,
      frontmatterHash: node.frontmatter_hash,
      promptTemplateHash: action.promptTemplateHash,
    }),
  };
  if (!request.force) await refuseDuplicate(ctx, key);
  if (
    request.ttlSeconds !== undefined &&
    !(Number.isInteger(request.ttlSeconds) && request.ttlSeconds >= 1)
  ) {
    throw new KeelError(
      "INVALID_ARGUMENT",
      `--ttl must be a whole number of seconds ≥ 1, not ${request.ttlSeconds}.`,
    );
  }
  const ttl = resolveTtl(
    ctx.config,
    { id: manifest.id, expectedDurationSeconds: manifest.expectedDurationSeconds },
    request.ttlSeconds,
  );
  const nodeFile = absoluteIn(ctx, node.path);
  if (!existsSync(nodeFile)) {
    throw new KeelError(
      "CATALOG_NODE_NOT_FOUND",
      `Node "${node.path}" is in the catalog but ${nodeFile} is gone.`,
      {
        details: { node: node.path, file: nodeFile },
        hint: "Run `keel scan` to bring the catalog up to date.",
      },
    );
  }
  const nodeContent = readFileSync(nodeFile, "utf8");
  const jobsDir = join(ctx.keelDir, "jobs");
  mkdirSync(jobsDir, { recursive: true });
  for (let attempt = 0; attempt < MAX_ID_ATTEMPTS; attempt++) {
    const now = ctx.now();
    const id = newJobId(now);
    const file = join(jobsDir, `${id}.md`);
    const text = renderJobFile({
      jobId: id,
      actionId: manifest.id,
      template: manifest.promptTemplate,
      nodePath: node.path,
      nodeKind: node.kind,
      nodeContent,
    });
    try {
      // `wx`: an id whose file exists (a pruned row's leftover) is not reused.
      writeFileSync(file, text, { flag: "wx", mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST") continue;
      throw error;
    }
    const row = {
      id,
      action_id: key.actionId,
      action_version: key.actionVersion,
      node_id: key.nodeId,
      content_hash: key.contentHash,
      nonce: newNonce(),
      priority: request.priority ?? 0,
      ttl_seconds: ttl,
      file_path: storedPath(ctx, file),
      created_at: now,
      submitted_by: request.submittedBy ?? null,
      is_forced: request.force ? 1 : 0,
    };
    if (await insertJob(db, row)) {
      return jobWithNonceFromRow({
        ...row,
        status: "queued",
        failure_reason: null,
        runner: null,
        claimed_at: null,
        finished_at: null,
        expires_at: null,
      });
    }
    rmSync(file, { force: true });
    // Refused by a unique index: a live duplicate won a race, or the id was taken.
    if (!request.force) await refuseDuplicate(ctx, key);
  }
  throw new KeelError("INTERNAL", `Could not find a free job id in ${MAX_ID_ATTEMPTS} attempts.`, {
    hint: "More than a few thousand jobs were submitted in one second; submit again.",
  });
}

async function refuseDuplicate(
  ctx: JobsContext,
  key: { actionId: string; actionVersion: string; nodeId: string; contentHash: string },
): Promise<void> {
  const existing = await findLiveDuplicate(ctx.store.kysely, key);
  if (!existing) return;
  throw new KeelError(
    "JOB_DUPLICATE",
    `${existing.id}: a ${existing.status} job already applies ${key.actionId}@${key.actionVersion} to ${key.nodeId} with the same content.`,
    {
      details: { existingId: existing.id, status: existing.status, ...key },
      hint: `Wait for ${existing.id}, cancel it (\`keel job cancel ${existing.id}\`), or pass --force to queue another.`,
    },
  );
}
