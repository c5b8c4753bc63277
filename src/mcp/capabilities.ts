/** What a client of the MCP server may do; each tool needs one (or two) of these. */
export const MCP_CAPABILITIES = [
  "read",
  "propose",
  "supersede",
  "accept",
  "sync",
  "purge",
  "maintenance",
  "approvals",
] as const;
export type McpCapability = (typeof MCP_CAPABILITIES)[number];

/** The reference's defaults: everything but purge; deciding approvals is off too (a person's act). */
export const DEFAULT_CAPABILITIES: ReadonlySet<McpCapability> = new Set([
  "read",
  "propose",
  "supersede",
  "accept",
  "sync",
  "maintenance",
]);

/** The default set with `allow` added and `deny` removed. */
export function capabilitySet(
  allow: readonly string[] = [],
  deny: readonly string[] = [],
): Set<McpCapability> {
  const set = new Set<McpCapability>(DEFAULT_CAPABILITIES);
  for (const name of allow)
    if ((MCP_CAPABILITIES as readonly string[]).includes(name)) set.add(name as McpCapability);
  for (const name of deny) set.delete(name as McpCapability);
  return set;
}
