import { KeelError } from "../../core/index.js";
import { type CheckpointConfig, DURABILITY_MODES, type Durability } from "../base/index.js";

/** The mode a call asks for: `config.durability` (set by the engine), else `configurable.durability`. */
export function durabilityOf(config: CheckpointConfig | undefined): Durability | undefined {
  const mode = config?.durability ?? config?.configurable?.durability;
  return mode === undefined ? undefined : checkDurability(mode);
}

/** A known mode, or INVALID_ARGUMENT. */
export function checkDurability(mode: unknown): Durability {
  if (DURABILITY_MODES.includes(mode as Durability)) return mode as Durability;
  throw new KeelError("INVALID_ARGUMENT", `Unknown durability mode ${JSON.stringify(mode)}.`, {
    hint: `Use one of ${DURABILITY_MODES.join(", ")}.`,
  });
}
