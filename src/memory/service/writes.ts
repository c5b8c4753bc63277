import { canonicalJson, KeelError, sha256Hex } from "../../core/index.js";
import {
  DecisionContent,
  type DecisionContentInput,
  ProposalContent,
  type ProposalContentInput,
} from "../models/content.js";
import type { EventSource, PatternScope } from "../models/enums.js";
import { isSemanticKind } from "../models/enums.js";
import { MemoryEvent, type MemoryEventInput } from "../models/event.js";
import { SupersedeDecisionRequest } from "../models/requests.js";
import { memoryProblems } from "../models/validate.js";
import { isActiveTargetTaken, isDuplicateEvent } from "../store/db-errors.js";
import { type MemoryRecord, recordFromRow } from "../store/record-shape.js";
import { toDbEnum } from "../store/tables.js";
import { conflictError } from "./conflict.js";
import type { MemoryContext } from "./context.js";
import {
  activeDecisionIds,
  insertRecord,
  loadRecord,
  loadRecords,
  similarTargets,
} from "./rows.js";
import { storeVector } from "./vectors.js";

/** A semantic record to write: the content model plus where it came from. */
export interface RecordInput extends DecisionContentInput {
  kind?: "decision" | "constraint" | "assumption" | "intervention";
  source?: EventSource;
  /** The event content; defaults to the title. */
  content?: string;
  scope?: PatternScope;
  confidence?: number;
}

function invalid(
  model: string,
  issues: Parameters<typeof memoryProblems>[1],
  input: unknown,
): KeelError {
  const problems = memoryProblems(null, issues, input);
  return new KeelError(
    "MEMORY_INVALID",
    `The ${model} is invalid: ${problems.map((p) => `${p.path} ${p.message}`).join("; ")}`,
    {
      details: { problems },
      hint: problems.map((p) => `${p.path}: ${p.hint}`).join(" "),
    },
  );
}

/** Refuses text that cannot be stored as UTF-8 everywhere: lone surrogates and NUL. */
function checkText(fields: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value !== "string") continue;
    if (
      value.includes("\0") ||
      /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(value)
    ) {
      throw new KeelError(
        "MEMORY_INVALID",
        `The ${name} is not valid text: it holds a NUL or an unpaired UTF-16 surrogate (invalid UTF-8 once encoded).`,
        {
          details: {
            problems: [
              {
                code: "string_unicode",
                path: `/${name}`,
                message: "not valid Unicode text",
                expected: "valid UTF-8 text",
                actual: "invalid",
                hint: "Decode the input as UTF-8 and drop NUL characters.",
              },
            ],
          },
          hint: "Decode the input as UTF-8 and drop NUL characters.",
        },
      );
    }
  }
}

/**
 * What every write checks before anything else: its source (`agent` unless named) may write
 * under the trust boundary, and its text fields are valid Unicode without NUL. Returns the
 * source.
 */
function admit(
  ctx: MemoryContext,
  source: EventSource | undefined,
  texts: Record<string, unknown> = {},
): EventSource {
  const from = source ?? "agent";
  ctx.checkTrust(from);
  checkText(texts);
  return from;
}

/** The text fields of a record request that admit checks. */
function recordTexts(input: {
  title?: unknown;
  target?: unknown;
  rationale?: unknown;
  content?: unknown;
}): Record<string, unknown> {
  return {
    title: input.title,
    target: input.target,
    rationale: input.rationale,
    content: input.content,
  };
}

function parseDecision(input: RecordInput, namespace: string): DecisionContent {
  const { kind: _k, source: _s, content: _c, scope: _sc, confidence: _cf, ...content } = input;
  const parsed = DecisionContent.safeParse({ namespace, ...content });
  if (!parsed.success) throw invalid("decision", parsed.error.issues, content);
  return parsed.data;
}

function recordRow(input: {
  id: string;
  kind: string;
  source: string;
  status: string;
  content: string;
  decision: {
    title: string;
    target: string;
    rationale: string;
    namespace: string;
    keywords: string[];
  };
  context: Record<string, unknown>;
  scope?: string;
  confidence: number;
  now: number;
}) {
  return {
    id: input.id,
    namespace: input.decision.namespace,
    kind: input.kind,
    source: toDbEnum(input.source),
    status: input.status,
    target: input.decision.target,
    title: input.decision.title,
    rationale: input.decision.rationale,
    content: input.content,
    keywords: input.decision.keywords.map((k) => k.replaceAll(/\s+/g, "_")).join(" "),
    context_json: JSON.stringify(input.context),
    superseded_by_memory_record_id: null,
    phase: "pattern",
    vitality: "active",
    scope: input.scope ?? "local",
    provenance: "internal",
    confidence: input.confidence,
    hit_count: 0,
    stream_json: JSON.stringify({
      frequency: 1,
      unique_contexts: 0,
      first_seen: new Date(input.now).toISOString(),
      last_seen: new Date(input.now).toISOString(),
    }),
    last_hit_at: null,
    created_at: input.now,
    updated_at: input.now,
  };
}

/**
 * Records a decision (or constraint, assumption, intervention). A second active decision on the
 * same (target, namespace) is a MEMORY_CONFLICT naming the active ids; the database's partial
 * unique index makes this hold under concurrent writers too.
 */
export async function recordDecision(
  ctx: MemoryContext,
  input: RecordInput,
  newId: () => string,
): Promise<MemoryRecord> {
  const source = admit(ctx, input.source, recordTexts(input));
  const decision = parseDecision(input, input.namespace ?? ctx.namespace);
  const kind = input.kind ?? "decision";
  const id = newId();
  const vectorText = `${decision.title}\n${decision.rationale}`;
  const vector = await embedOne(ctx, vectorText);
  let written: ReturnType<typeof recordRow> | undefined;
  try {
    await ctx.write(async (tx, audit) => {
      // No read before the insert: the partial unique index refuses a second active decision
      // on the target (caught below and turned into MEMORY_CONFLICT with the active ids).
      const now = ctx.clock.now();
      const row = recordRow({
        id,
        kind,
        source,
        status: decision.status === "draft" ? "draft" : "active",
        content: input.content ?? decision.title,
        decision,
        context: decision,
        scope: input.scope,
        confidence: input.confidence ?? (kind === "intervention" ? 0.7 : 1),
        now,
      });
      await insertRecord(tx, ctx.store.dialect, row);
      if (vector) await storeVector(tx, ctx, id, vector);
      await audit({
        type: `memory.${kind}_recorded`,
        summary: `Recorded ${kind} ${id} on target '${decision.target}' in namespace '${decision.namespace}': ${decision.title}`,
      });
      written = row;
    });
  } catch (error) {
    if (isActiveTargetTaken(error)) {
      const active = await activeDecisionIds(ctx.db, decision.namespace, decision.target);
      throw await conflict(ctx.db, decision, active);
    }
    throw error;
  }
  // The row as written is the record (a new record supersedes nothing yet).
  return recordFromRow(written as ReturnType<typeof recordRow>);
}

async function conflict(
  db: Parameters<typeof similarTargets>[0],
  decision: { namespace: string; target: string },
  active: string[],
) {
  return conflictError({
    target: decision.target,
    namespace: decision.namespace,
    activeIds: active,
    didYouMean: await similarTargets(db, decision.namespace, decision.target),
  });
}

async function embedOne(ctx: MemoryContext, text: string): Promise<number[] | null> {
  if (!ctx.embedder) return null;
  const [vector] = await ctx.embedder.embed([text]);
  return vector ?? null;
}

/** A supersede request (seed 001, `SupersedeDecisionRequest`) with where it came from. */
export interface SupersedeInput {
  title: string;
  target: string;
  rationale: string;
  old_decision_ids: string[];
  consequences?: string[] | null;
  namespace?: string;
  keywords?: string[];
  source?: EventSource;
  /** The event content; defaults to the title. */
  content?: string;
}

/**
 * Replaces decisions with a new one. The old ids must be active and must cover every active
 * decision on the new target (else MEMORY_CONFLICT naming the ones left out); each old record
 * becomes `superseded` with a link to the new one, in one transaction with its audit events.
 */
export async function supersede(
  ctx: MemoryContext,
  input: SupersedeInput,
  newId: () => string,
): Promise<MemoryRecord> {
  const source = admit(ctx, input.source, recordTexts(input));
  const request = SupersedeDecisionRequest.safeParse({
    ...input,
    namespace: input.namespace ?? ctx.namespace,
  });
  if (!request.success) throw invalid("supersede request", request.error.issues, input);
  const decision = parseDecision(
    { ...request.data, keywords: input.keywords ?? [] },
    request.data.namespace,
  );
  const id = newId();
  const vector = await embedOne(ctx, `${decision.title}\n${decision.rationale}`);
  await ctx.write(async (tx, audit) => {
    const olds = await loadRecords(tx, request.data.old_decision_ids);
    const found = new Set(olds.map((r) => r.id));
    const unknown = request.data.old_decision_ids.filter((old) => !found.has(old));
    if (unknown.length > 0) {
      throw new KeelError(
        "MEMORY_NOT_FOUND",
        `No memory record ${unknown.join(", ")} to supersede.`,
        { details: { ids: unknown } },
      );
    }
    const inactive = olds.filter((r) => r.status !== "active");
    if (inactive.length > 0) {
      throw new KeelError(
        "MEMORY_INVARIANT",
        `Only active records can be superseded; ${inactive.map((r) => `${r.id} is ${r.status}${r.superseded_by ? ` (by ${r.superseded_by})` : ""}`).join(", ")}.`,
        {
          details: { ids: inactive.map((r) => r.id) },
          hint: "Supersede the record that replaced it instead.",
        },
      );
    }
    const active = await activeDecisionIds(tx, decision.namespace, decision.target);
    const missing = active.filter((a) => !found.has(a));
    if (missing.length > 0) {
      throw conflictError({
        target: decision.target,
        namespace: decision.namespace,
        activeIds: active,
        didYouMean: [],
        missing,
      });
    }
    const now = ctx.clock.now();
    await insertRecord(
      tx,
      ctx.store.dialect,
      recordRow({
        id,
        kind: "decision",
        source,
        status: "draft",
        content: input.content ?? decision.title,
        decision,
        context: { ...decision, supersedes: request.data.old_decision_ids },
        confidence: 1,
        now,
      }),
    );
    for (const old of olds) {
      await tx
        .updateTable("state_memory_records")
        .set({ status: "superseded", superseded_by_memory_record_id: id, updated_at: now })
        .where("id", "=", old.id)
        .execute();
      await audit({
        type: "memory.record_superseded",
        summary: `Superseded ${old.kind} ${old.id} by ${id} on target '${old.target}'`,
      });
    }
    await tx
      .updateTable("state_memory_records")
      .set({ status: "active", updated_at: now })
      .where("id", "=", id)
      .execute();
    if (vector) await storeVector(tx, ctx, id, vector);
    await audit({
      type: "memory.decision_recorded",
      summary: `Recorded decision ${id} on target '${decision.target}' in namespace '${decision.namespace}', superseding ${olds.map((r) => r.id).join(", ")}: ${decision.title}`,
    });
  });
  return loadRecord(ctx.db, id);
}

/** A proposal to write: the ProposalContent with where it came from. */
export type ProposeInput = ProposalContentInput & { source?: EventSource; content?: string };

/** Stores a draft proposal (a hypothesis); it never conflicts with decisions. */
export async function propose(
  ctx: MemoryContext,
  input: ProposeInput,
  newId: () => string,
): Promise<MemoryRecord> {
  const source = admit(ctx, input.source, recordTexts(input));
  const { source: _s, content: _c, ...content } = input;
  const now = ctx.clock.now();
  const parsed = ProposalContent.safeParse({
    namespace: ctx.namespace,
    first_observed_at: new Date(now).toISOString(),
    last_observed_at: new Date(now).toISOString(),
    ...content,
  });
  if (!parsed.success) throw invalid("proposal", parsed.error.issues, content);
  const proposal = parsed.data;
  const id = newId();
  await ctx.write(async (tx, audit) => {
    await insertRecord(
      tx,
      ctx.store.dialect,
      recordRow({
        id,
        kind: "proposal",
        source,
        status: proposal.status,
        content: input.content ?? proposal.title,
        decision: proposal,
        context: proposal,
        confidence: proposal.confidence,
        now,
      }),
    );
    await audit({
      type: "memory.proposal_recorded",
      summary: `Proposed ${id} on target '${proposal.target}' in namespace '${proposal.namespace}' (confidence ${proposal.confidence}): ${proposal.title}`,
    });
  });
  return loadRecord(ctx.db, id);
}

async function draftProposal(ctx: MemoryContext, id: string): Promise<MemoryRecord> {
  const record = await loadRecord(ctx.db, id);
  if (record.kind !== "proposal") {
    throw new KeelError("MEMORY_INVARIANT", `${id} is a ${record.kind}, not a proposal.`, {
      details: { id },
    });
  }
  if (record.status !== "draft") {
    throw new KeelError(
      "MEMORY_INVARIANT",
      `Proposal ${id} is already ${record.status}; only drafts can be accepted or rejected.`,
      { details: { id, status: record.status } },
    );
  }
  return record;
}

/**
 * Accepts a draft proposal: an active decision is recorded (its rationale prefixed with the
 * proposal id; active decisions listed in `suggested_supersedes` are superseded), and the
 * proposal becomes `accepted` with `converted_to`.
 */
export async function acceptProposal(
  ctx: MemoryContext,
  proposalId: string,
  newId: () => string,
  source: EventSource = "user",
): Promise<MemoryRecord> {
  admit(ctx, source);
  const proposal = await draftProposal(ctx, proposalId);
  const context = proposal.context as {
    consequences?: string[];
    suggested_consequences?: string[];
    suggested_supersedes?: string[];
    keywords?: string[];
  };
  const active = await activeDecisionIds(ctx.db, proposal.namespace, proposal.target);
  const base = {
    title: proposal.title,
    target: proposal.target,
    rationale: `[from proposal ${proposal.id}] ${proposal.rationale}`,
    consequences: context.suggested_consequences ?? [],
    namespace: proposal.namespace,
    keywords: context.keywords ?? [],
    source,
  };
  const suggested = new Set(context.suggested_supersedes ?? []);
  const decision =
    active.length > 0 && active.every((a) => suggested.has(a))
      ? await supersede(ctx, { ...base, old_decision_ids: active }, newId)
      : await recordDecision(ctx, base, newId);
  await ctx.write(async (tx, audit) => {
    await tx
      .updateTable("state_memory_records")
      .set({
        status: "accepted",
        context_json: JSON.stringify({
          ...proposal.context,
          status: "accepted",
          converted_to: decision.id,
        }),
        updated_at: ctx.clock.now(),
      })
      .where("id", "=", proposal.id)
      .where("status", "=", "draft")
      .execute();
    await audit({
      type: "memory.proposal_accepted",
      summary: `Accepted proposal ${proposal.id} as decision ${decision.id} on target '${proposal.target}'`,
    });
  });
  return decision;
}

/** Rejects a draft proposal, keeping the reason among its objections. */
export async function rejectProposal(
  ctx: MemoryContext,
  proposalId: string,
  reason: string | null,
  source: EventSource = "user",
): Promise<MemoryRecord> {
  admit(ctx, source);
  const proposal = await draftProposal(ctx, proposalId);
  const objections = [
    ...((proposal.context.objections as string[] | undefined) ?? []),
    ...(reason ? [reason] : []),
  ];
  await ctx.write(async (tx, audit) => {
    await tx
      .updateTable("state_memory_records")
      .set({
        status: "rejected",
        context_json: JSON.stringify({ ...proposal.context, status: "rejected", objections }),
        updated_at: ctx.clock.now(),
      })
      .where("id", "=", proposal.id)
      .execute();
    await audit({
      type: "memory.proposal_rejected",
      summary: `Rejected proposal ${proposal.id} on target '${proposal.target}'${reason ? `: ${reason}` : ""}`,
    });
  });
  return loadRecord(ctx.db, proposalId);
}

/**
 * Forgets a record for good (a purge: its history, vector and evidence links go with it). A
 * record that others name as their successor is refused: forget those first.
 */
export async function forget(
  ctx: MemoryContext,
  id: string,
  source: EventSource = "user",
): Promise<void> {
  admit(ctx, source);
  const record = await loadRecord(ctx.db, id);
  if (record.supersedes.length > 0) {
    throw new KeelError(
      "MEMORY_INVARIANT",
      `${id} superseded ${record.supersedes.join(", ")}; forgetting it would leave their links dangling.`,
      {
        details: { id, supersedes: record.supersedes },
        hint: `Forget ${record.supersedes.join(", ")} first, then ${id}.`,
      },
    );
  }
  await ctx.write(async (tx, audit) => {
    await tx.deleteFrom("state_memory_records").where("id", "=", id).execute();
    await audit({
      type: "memory.record_forgotten",
      summary: `Forgot ${record.kind} ${id} on target '${record.target}' in namespace '${record.namespace}'`,
    });
  });
}

/**
 * Retires an active record without a successor: it becomes `deprecated` (kept, with its
 * history; search damps it, and its target is free for a new decision). MEMORY_INVARIANT when
 * the record is not active.
 */
export async function deprecate(
  ctx: MemoryContext,
  id: string,
  source: EventSource = "user",
): Promise<void> {
  admit(ctx, source);
  const record = await loadRecord(ctx.db, id);
  await ctx.write(async (tx, audit) => {
    const changed = await tx
      .updateTable("state_memory_records")
      .set({ status: "deprecated", updated_at: ctx.clock.now() })
      .where("id", "=", id)
      .where("status", "=", "active")
      .executeTakeFirst();
    if (Number(changed.numUpdatedRows) !== 1) {
      throw new KeelError(
        "MEMORY_INVARIANT",
        `Only an active record can be deprecated; ${id} is ${record.status}.`,
        { details: { id, status: record.status } },
      );
    }
    await audit({
      type: "memory.record_deprecated",
      summary: `Deprecated ${record.kind} ${id} on target '${record.target}' in namespace '${record.namespace}'`,
    });
  });
}

/** Links an episodic event to a record as its evidence. */
export async function linkEvent(
  ctx: MemoryContext,
  eventId: number,
  recordId: string,
): Promise<void> {
  await loadRecord(ctx.db, recordId);
  await ctx.write(async (tx, audit) => {
    const result = await tx
      .updateTable("state_memory_events")
      .set({ memory_record_id: recordId })
      .where("id", "=", eventId)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) {
      throw new KeelError("MEMORY_NOT_FOUND", `No memory event ${eventId}.`, {
        details: { eventId },
        hint: "List events with `keel memory events`.",
      });
    }
    await audit({
      type: "memory.event_linked",
      summary: `Linked event ${eventId} to ${recordId} as evidence`,
    });
  });
}

/** What recording an event did. */
export interface RecordedEvent {
  store: "episodic" | "semantic";
  /** The event id (episodic) or record id (semantic). */
  id: number | string;
  /** An identical episodic event existed: nothing was written, `id` is that event's. */
  duplicate: boolean;
}

/**
 * Takes in any MemoryEvent: semantic kinds become records (a proposal through `propose`, the
 * others through `recordDecision`), the rest are episodic events; an exact duplicate of an
 * episodic event is not written twice.
 */
export async function recordEvent(
  ctx: MemoryContext,
  input: MemoryEventInput & { namespace?: string },
  newId: () => string,
): Promise<RecordedEvent> {
  const parsed = MemoryEvent.safeParse(input);
  if (!parsed.success) throw invalid("memory event", parsed.error.issues, input);
  const event = parsed.data;
  if (isSemanticKind(event.kind)) {
    const context = event.context as Record<string, unknown>;
    const record =
      event.kind === "proposal"
        ? await propose(
            ctx,
            { ...(context as ProposalContentInput), source: event.source, content: event.content },
            newId,
          )
        : await recordDecision(
            ctx,
            {
              ...(context as DecisionContentInput),
              kind: event.kind,
              source: event.source,
              content: event.content,
            },
            newId,
          );
    return { store: "semantic", id: record.id, duplicate: false };
  }
  admit(ctx, event.source, { content: event.content });
  const namespace = input.namespace ?? ctx.namespace;
  const contextJson = JSON.stringify(event.context);
  const hash = sha256Hex(
    canonicalJson({
      namespace,
      source: event.source,
      kind: event.kind,
      content: event.content,
      context: event.context,
    }),
  );
  try {
    const id = await ctx.write(async (tx, audit) => {
      const row = await tx
        .insertInto("state_memory_events")
        .values({
          namespace,
          source: toDbEnum(event.source),
          kind: toDbEnum(event.kind),
          status: "active",
          content: event.content,
          context_json: contextJson,
          content_hash: hash,
          memory_record_id: null,
          occurred_at: Date.parse(event.timestamp),
          created_at: ctx.clock.now(),
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      await audit({
        type: "memory.event_recorded",
        summary: `Recorded ${event.kind} event ${row.id} from ${event.source} in namespace '${namespace}'`,
      });
      return Number(row.id);
    });
    return { store: "episodic", id, duplicate: false };
  } catch (error) {
    if (!isDuplicateEvent(error)) throw error;
    const existing = await ctx.db
      .selectFrom("state_memory_events")
      .select("id")
      .where("content_hash", "=", hash)
      .executeTakeFirstOrThrow();
    return { store: "episodic", id: Number(existing.id), duplicate: true };
  }
}
