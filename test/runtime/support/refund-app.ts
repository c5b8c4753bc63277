/** A governed application module (`keelApp`) for continueGovernedRun's tests. */
import type { GovernedAppFactory } from "../../../src/runtime/index.js";
import { governedTools, type Ledgered, oneCallGraph } from "./governed.js";

/** What the module's tools did, in this process. */
export const appWorld: Ledgered = {
  refunds: [],
  emails: [],
  failRefunds: 0,
  crashAfterRefund: false,
};

export const keelApp: GovernedAppFactory = () => ({
  tools: governedTools(appWorld),
  graph: (runtime) => oneCallGraph(runtime, "email.send", () => ({ to: "app", body: "hi" })),
});
