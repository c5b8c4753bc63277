import { z } from "zod";
import { DecisionContent, ProposalContent } from "./content.js";
import { EventKind, EventSource, isSemanticKind } from "./enums.js";
import { StrictStr, WireTime } from "./primitives.js";

/**
 * Every event the memory takes in (seed 001, `MemoryEvent`). The context of a semantic kind is
 * validated as its content model (a proposal's as `ProposalContent`, the other semantic kinds'
 * as `DecisionContent`), with problems reported under `/context`; other kinds keep any JSON
 * object (a prompt's context may also be a string).
 *
 * @example
 * MemoryEvent.parse({ source: "agent", kind: "error", content: "connection refused" });
 */
export const MemoryEvent = z
  .object({
    schema_version: z.int().default(1),
    source: EventSource,
    kind: EventKind,
    content: StrictStr,
    context: z.union([z.record(z.string(), z.unknown()), z.string()]).default({}),
    timestamp: WireTime.optional(),
  })
  .transform((event, ctx) => {
    const timestamp = event.timestamp ?? new Date().toISOString();
    if (!isSemanticKind(event.kind)) return { ...event, timestamp };
    const model = event.kind === "proposal" ? ProposalContent : DecisionContent;
    const parsed = model.safeParse(event.context);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        ctx.addIssue({ ...issue, path: ["context", ...issue.path] } as z.core.$ZodRawIssue);
      }
      return z.NEVER;
    }
    return { ...event, timestamp, context: parsed.data as Record<string, unknown> };
  });
export type MemoryEvent = z.output<typeof MemoryEvent>;
export type MemoryEventInput = z.input<typeof MemoryEvent>;
