import { KeelError } from "../../core/index.js";

/**
 * What a route may need. `read` sees everything; `runs` creates and changes threads and runs;
 * `approve` decides approvals (`approve:<tool>` only those of one tool); `ledger` settles calls
 * in doubt; `jobs` operates the job queue; `memory` records and supersedes decisions; `admin` may
 * do all of it.
 */
export const ROUTE_CAPABILITIES = [
  "read",
  "runs",
  "approve",
  "ledger",
  "jobs",
  "memory",
  "admin",
] as const;
export type RouteCapability = (typeof ROUTE_CAPABILITIES)[number];

/** A capability a token may carry: a route capability or `approve:<tool name>`. */
export type Capability = RouteCapability | `approve:${string}`;

const TOOL_NAME = /^[A-Za-z0-9_.:-]{1,200}$/;

/** Checks capability names given by an operator; every bad one is reported. */
export function parseCapabilities(names: readonly string[]): Capability[] {
  const bad = names.filter((name) => !isCapability(name));
  if (bad.length > 0 || names.length === 0) {
    throw new KeelError(
      "INVALID_ARGUMENT",
      names.length === 0
        ? "A token needs at least one capability."
        : `Unknown capabilit${bad.length === 1 ? "y" : "ies"}: ${bad.join(", ")}.`,
      {
        details: { invalid: bad },
        hint: `Use ${ROUTE_CAPABILITIES.join(", ")}, or approve:<tool> for one tool's approvals.`,
      },
    );
  }
  return [...new Set(names)] as Capability[];
}

function isCapability(name: string): name is Capability {
  if ((ROUTE_CAPABILITIES as readonly string[]).includes(name)) return true;
  return name.startsWith("approve:") && TOOL_NAME.test(name.slice("approve:".length));
}

/**
 * True when `held` grants `needed`: `admin` grants everything, `approve:<tool>` grants the
 * route-level `approve` (the handler then checks the tool). Nothing else implies anything: a
 * token that approves but cannot `read` sees no runs.
 */
export function grants(held: readonly Capability[], needed: RouteCapability): boolean {
  if (held.includes("admin")) return true;
  if (needed === "approve") return held.some((c) => c === "approve" || c.startsWith("approve:"));
  return held.includes(needed);
}

/** True when `held` may decide an approval of `tool` (null: an approval of no tool). */
export function mayApproveTool(held: readonly Capability[], tool: string | null): boolean {
  if (held.includes("admin") || held.includes("approve")) return true;
  return tool !== null && held.includes(`approve:${tool}`);
}
