import type { Capability } from "./capabilities.js";

/** Who is calling: a stored token, a dashboard session, or the server's launch key. */
export interface Caller {
  kind: "token" | "session" | "launch";
  /** The token's id (a session carries the id of the token it was opened with). */
  tokenId: string;
  name: string;
  capabilities: readonly Capability[];
  /** Set for dashboard sessions: the value a state-changing form must echo. */
  csrf?: string;
}
