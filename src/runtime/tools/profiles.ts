import { KeelError } from "../../core/index.js";
import type { SideEffects } from "../../ir/index.js";

/**
 * Which side effects a profile lets tools have. `default` allows all; `cleared` (a run cleared
 * only to look, e.g. a preview, a replay, an untrusted trigger) refuses `write` and `external`.
 */
export const TOOL_PROFILES = {
  default: ["none", "read", "write", "external"],
  cleared: ["none", "read"],
} as const satisfies Record<string, readonly SideEffects[]>;

export type ToolProfile = keyof typeof TOOL_PROFILES;

/** Whether a profile allows a tool with these side effects. */
export function profileAllows(profile: ToolProfile, sideEffects: SideEffects): boolean {
  return (TOOL_PROFILES[profile] as readonly SideEffects[]).includes(sideEffects);
}

/** Refuses, with `TOOL_FORBIDDEN`, a tool whose side effects the profile does not allow. */
export function assertProfileAllows(
  profile: ToolProfile,
  toolId: string,
  sideEffects: SideEffects,
): void {
  if (profileAllows(profile, sideEffects)) return;
  throw new KeelError(
    "TOOL_FORBIDDEN",
    `Tool "${toolId}" has ${sideEffects} side effects, which the "${profile}" profile refuses.`,
    {
      details: { toolId, sideEffects, profile, allowed: TOOL_PROFILES[profile] },
      hint: `Under "${profile}" only tools with side effects ${TOOL_PROFILES[profile].join(", ")} run; run the step under a profile that allows it.`,
    },
  );
}
