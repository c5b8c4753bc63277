import type { z } from "zod";
import {
  ActionSchema,
  AssertActionSchema,
  GotoActionSchema,
  HaltActionSchema,
  InterruptActionSchema,
  ParallelActionSchema,
  RetractActionSchema,
  RetryActionSchema,
} from "./actions.js";
import {
  CheckpointBlockSchema,
  IRDocumentSchema,
  MigrateBlockSchema,
  NodeSpecSchema,
  PackMountSchema,
  PackRequiresSchema,
  ParallelBlockSchema,
  RuleSpecSchema,
  SGLangServerSchema,
  SkillRefSchema,
  StoreRefSchema,
  ToolRefSchema,
} from "./document.js";
import {
  FactTemplateSchema,
  PluginManifestSchema,
  SkillSpecSchema,
  SlotDefSchema,
  StoreSpecSchema,
  ToolSpecSchema,
} from "./specs.js";

export * from "./actions.js";
export * from "./document.js";
export * from "./specs.js";

/**
 * Every IR model by its seed name: what `loads(text, model)`, `keel ir schema <Model>` and the
 * JSON Schema export accept.
 */
export const MODELS = {
  IRDocument: IRDocumentSchema,
  NodeSpec: NodeSpecSchema,
  RuleSpec: RuleSpecSchema,
  Action: ActionSchema,
  GotoAction: GotoActionSchema,
  HaltAction: HaltActionSchema,
  ParallelAction: ParallelActionSchema,
  RetryAction: RetryActionSchema,
  AssertAction: AssertActionSchema,
  RetractAction: RetractActionSchema,
  InterruptAction: InterruptActionSchema,
  ToolRef: ToolRefSchema,
  ToolSpec: ToolSpecSchema,
  SkillRef: SkillRefSchema,
  SkillSpec: SkillSpecSchema,
  StoreRef: StoreRefSchema,
  StoreSpec: StoreSpecSchema,
  PluginManifest: PluginManifestSchema,
  PackMount: PackMountSchema,
  PackRequires: PackRequiresSchema,
  ParallelBlock: ParallelBlockSchema,
  MigrateBlock: MigrateBlockSchema,
  CheckpointBlock: CheckpointBlockSchema,
  SGLangServer: SGLangServerSchema,
  FactTemplate: FactTemplateSchema,
  SlotDef: SlotDefSchema,
} as const satisfies Record<string, z.ZodType>;

/** The seed name of an IR model. */
export type ModelName = keyof typeof MODELS;

/** The parsed TypeScript type of model `M`. */
export type ModelOutput<M extends ModelName> = z.output<(typeof MODELS)[M]>;

/** True when `name` is the name of an IR model. */
export function isModelName(name: string): name is ModelName {
  return Object.hasOwn(MODELS, name);
}
