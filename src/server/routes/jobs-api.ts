import { z } from "zod";
import {
  cancelJob,
  countJobs,
  JOB_STATUSES,
  type Job,
  listJobs,
  openJobsContext,
  showJob,
  submitJob,
} from "../../jobs/index.js";
import type { ServerContext } from "../context.js";
import type { RouteTable } from "../route.js";

const Json = z.record(z.string(), z.unknown());
const JobStatus = z.enum(JOB_STATUSES as [string, ...string[]]);

/**
 * The job queue (seed 004's dispatch lifecycle): list with counts per status, show, submit and
 * cancel, each the call `keel job list/show/submit/cancel` makes. Submitting and cancelling need
 * `jobs`. A job's nonce never leaves through the API (the runner reads it from the job file).
 */
export function jobRoutes(table: RouteTable, ctx: ServerContext): void {
  const jobs = () => openJobsContext(ctx.store);

  table.add(
    {
      method: "get",
      path: "/api/jobs",
      capability: "read",
      summary: "The job queue, newest first, with the count of jobs in each status.",
      tag: "jobs",
      query: z.looseObject({
        status: JobStatus.optional(),
        action: z.string().max(200).optional(),
        node: z.string().max(4096).optional(),
        limit: z.coerce.number().int().min(1).max(1000).default(100),
      }),
      response: z.object({
        ok: z.literal(true),
        jobs: z.array(Json),
        counts: z.record(z.string(), z.number()),
      }),
    },
    async (c, { query }) => {
      const jc = await jobs();
      const [list, counts] = await Promise.all([
        listJobs(jc, {
          ...(query.status ? { status: query.status as Job["status"] } : {}),
          ...(query.action ? { action: query.action } : {}),
          ...(query.node ? { node: query.node } : {}),
          limit: query.limit,
        }),
        countJobs(jc),
      ]);
      return c.json({
        ok: true as const,
        jobs: list as unknown as Record<string, unknown>[],
        counts,
      });
    },
  );

  table.add(
    {
      method: "get",
      path: "/api/jobs/{job_id}",
      capability: "read",
      summary: "One job (`keel job show`): state, TTL remaining, runner, last execution.",
      tag: "jobs",
      response: Json,
    },
    async (c, { params }) => {
      const detail = await showJob(await jobs(), params.job_id ?? "");
      return c.json({ ok: true, ...detail });
    },
  );

  table.add(
    {
      method: "post",
      path: "/api/jobs",
      capability: "jobs",
      summary:
        "Queue a job (`keel job submit`): an action on a catalog node; a live duplicate is refused (409 JOB_DUPLICATE) unless force.",
      tag: "jobs",
      body: z.object({
        action: z.string().min(1).max(200),
        node: z.string().min(1).max(4096),
        force: z.boolean().optional(),
        ttl_seconds: z.number().int().min(1).optional(),
        priority: z.number().int().optional(),
      }),
      response: Json,
    },
    async (c, { body, caller }) => {
      const { nonce: _nonce, ...job } = await submitJob(await jobs(), {
        actionId: body.action,
        nodePath: body.node,
        ...(body.force !== undefined ? { force: body.force } : {}),
        ...(body.ttl_seconds !== undefined ? { ttlSeconds: body.ttl_seconds } : {}),
        ...(body.priority !== undefined ? { priority: body.priority } : {}),
        submittedBy: caller?.name ?? null,
      });
      // The watcher publishes job.queued (once, whoever queued it).
      void ctx.watcher.poke();
      return c.json({ ok: true, job }, 201);
    },
  );

  table.add(
    {
      method: "post",
      path: "/api/jobs/{job_id}/cancel",
      capability: "jobs",
      summary:
        "Cancel a queued or running job (`keel job cancel`): it fails as user-cancelled; a finished job is refused (409 JOB_ALREADY_TERMINAL).",
      tag: "jobs",
      response: Json,
    },
    async (c, { params }) => {
      const job = await cancelJob(await jobs(), params.job_id ?? "");
      void ctx.watcher.poke();
      return c.json({ ok: true, job });
    },
  );
}
