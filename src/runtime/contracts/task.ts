import { z } from "zod";
import { AutonomyLevel, RetryStrategy, StepStatus, TaskStatus } from "./enums.js";
import {
  ErrorDetail,
  JsonObject,
  NonEmpty,
  NonNegativeInt,
  Timestamp,
  Uuid,
} from "./primitives.js";

/**
 * How a failed step is retried. `max_delay_ms` caps every delay; exponential backoff always uses
 * jitter (the seed: "Always true for exponential"), so that retries of many runs spread out.
 */
export const RetryPolicy = z
  .strictObject({
    strategy: RetryStrategy,
    base_delay_ms: NonNegativeInt,
    max_delay_ms: NonNegativeInt,
    jitter: z.boolean(),
  })
  .superRefine((policy, ctx) => {
    if (policy.max_delay_ms < policy.base_delay_ms) {
      ctx.addIssue({
        code: "custom",
        path: ["max_delay_ms"],
        message: "max_delay_ms is below base_delay_ms.",
        input: policy.max_delay_ms,
        params: {
          expected: `>= ${policy.base_delay_ms} (base_delay_ms)`,
          hint: "Raise max_delay_ms or lower base_delay_ms.",
        },
      });
    }
    if (policy.strategy === "exponential" && !policy.jitter) {
      ctx.addIssue({
        code: "custom",
        path: ["jitter"],
        message: "Exponential retries must jitter.",
        input: policy.jitter,
        params: {
          expected: true,
          hint: "Exponential backoff always jitters so that retries spread out; set jitter: true.",
        },
      });
    }
  });
export type RetryPolicy = z.output<typeof RetryPolicy>;

/**
 * One run of a workflow (seed 003, `Task`). The autonomy level is a snapshot taken at start and
 * never changes while the task lives. `trigger_event_id` is null for a run started without an
 * event (Keel: the seed has no such runs; naming anything else there would be false).
 */
export const Task = z.strictObject({
  task_id: Uuid,
  created_at: Timestamp,
  updated_at: Timestamp,
  status: TaskStatus,
  trigger_event_id: Uuid.nullable(),
  trace_id: Uuid,
  current_step_id: Uuid.nullable().default(null),
  autonomy_level_at_start: AutonomyLevel,
  labels: z.array(NonEmpty).default([]),
  next_wake_time: Timestamp.nullable().default(null),
  cancel_reason: z.string().nullable().default(null),
  error: ErrorDetail.nullable().default(null),
});
export type Task = z.output<typeof Task>;
export type TaskInput = z.input<typeof Task>;

/**
 * One attempt at one node of a task (seed 003, `Step`). `input` is fixed at creation;
 * `checkpoint` is written mid-step so the step can resume; `output` is written on success.
 */
export const Step = z
  .strictObject({
    step_id: Uuid,
    task_id: Uuid,
    name: NonEmpty,
    status: StepStatus,
    attempt: NonNegativeInt,
    max_attempts: z.int().min(1),
    retry_policy: RetryPolicy,
    input: JsonObject,
    checkpoint: JsonObject.default({}),
    output: JsonObject.nullable().default(null),
    idempotency_key: z.string().min(1).nullable().default(null),
    started_at: Timestamp.nullable().default(null),
    ended_at: Timestamp.nullable().default(null),
    error: ErrorDetail.nullable().default(null),
  })
  .superRefine((step, ctx) => {
    if (step.attempt >= step.max_attempts) {
      ctx.addIssue({
        code: "custom",
        path: ["attempt"],
        message: "attempt must be below max_attempts (attempts count from 0).",
        input: step.attempt,
        params: {
          expected: `< ${step.max_attempts} (max_attempts)`,
          hint: "A step with attempt = max_attempts - 1 has no retries left.",
        },
      });
    }
  });
export type Step = z.output<typeof Step>;
export type StepInput = z.input<typeof Step>;
