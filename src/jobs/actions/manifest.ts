import { z } from "zod";

/** The node kinds an action may target. */
export const NodeKindSchema = z.enum(["skill", "agent", "command", "hook", "note"]);

/**
 * What an action is (cli-contract.md, "Actions"): its identity, which nodes it applies to, how
 * long a run should take, the prompt template a runner executes and the JSON Schema its report
 * must meet (checked together with report-base's `confidence` and `safety`).
 *
 * The template is kernel-controlled text: the only interpolations are `{{node}}` (the node's
 * content inside a `<user-content>` block) and `{{kind}}` / `{{action.id}}` (kernel values); any
 * other `{{…}}` is refused when the manifest loads (prompt-preamble.md, delimiter rule 4).
 */
export const ActionManifestSchema = z
  .object({
    id: z.string().regex(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/, "action ids are kebab-case"),
    version: z.string().regex(/^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?$/, "a semver version"),
    description: z.string().min(1),
    /** Which nodes `job submit --all` fans out to; absent: every node. */
    preconditions: z
      .object({
        kinds: z.array(NodeKindSchema).min(1).optional(),
      })
      .strict()
      .default({}),
    expectedDurationSeconds: z.number().int().positive(),
    promptTemplate: z.string().min(1),
    /** JSON Schema (draft 2020-12) of the report, on top of report-base. */
    reportSchema: z.record(z.string(), z.unknown()).default({}),
    /** The runner `keel job run` uses unless told otherwise. */
    runner: z.enum(["cli", "skill", "in-process"]).default("cli"),
    /**
     * For the in-process runner: a Keel IR document (`ir`), or a module exporting `keelApp` — a
     * TypeScript/JavaScript graph with its tools (`module`) — path relative to the manifest, run
     * as a durable governed run whose final state is the report.
     */
    implementation: z
      .discriminatedUnion("kind", [
        z.object({ kind: z.literal("ir"), document: z.string().min(1) }).strict(),
        z.object({ kind: z.literal("module"), module: z.string().min(1) }).strict(),
      ])
      .optional(),
  })
  .strict();

/** An action manifest as written (JSON). */
export type ActionManifestInput = z.input<typeof ActionManifestSchema>;
/** An action manifest after validation (defaults filled). */
export type ActionManifest = z.output<typeof ActionManifestSchema>;

const PLACEHOLDER = /\{\{\s*([^}]*?)\s*\}\}/g;
const ALLOWED = new Set(["node", "kind", "action.id"]);

/** Placeholders in a template that the kernel does not fill (each a rule-4 violation). */
export function unknownPlaceholders(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)]
    .map((match) => match[1] ?? "")
    .filter((name) => !ALLOWED.has(name));
}
