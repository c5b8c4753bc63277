import {
  type CompiledSchema,
  compileJsonSchema,
  type ValidationProblem,
} from "../../runtime/index.js";
import { promptTemplateHash } from "../content-hash.js";
import type { ActionManifest } from "./manifest.js";
import { REPORT_BASE_SCHEMA } from "./report-base.js";

/** A loaded action: its manifest, where it came from, and its compiled report check. */
export interface Action {
  readonly manifest: ActionManifest;
  /** `builtin` or the id of the plugin that declares it. */
  readonly source: string;
  /** The folder relative paths of the manifest resolve from (null for built-ins). */
  readonly dir: string | null;
  /** sha256(preamble + template): part of every job's content hash. */
  readonly promptTemplateHash: string;
  /** Every problem of a report against report-base and the action's schema (empty: valid). */
  validateReport(report: unknown): ValidationProblem[];
}

let baseSchema: CompiledSchema | undefined;

/** Wraps a validated manifest as an {@link Action}. */
export function makeAction(manifest: ActionManifest, source: string, dir: string | null): Action {
  baseSchema ??= compileJsonSchema(REPORT_BASE_SCHEMA);
  const base = baseSchema;
  const own = compileJsonSchema(manifest.reportSchema);
  return {
    manifest,
    source,
    dir,
    promptTemplateHash: promptTemplateHash(manifest.promptTemplate),
    validateReport(report) {
      const problems = [...base(report), ...own(report)];
      // Both schemas may name the same missing field; report it once.
      const seen = new Set<string>();
      return problems.filter((p) => {
        const key = `${p.code} ${p.path} ${p.message}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
    },
  };
}
