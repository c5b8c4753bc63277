import type { Logger } from "pino";
import type { DurableSaver, RunStore } from "../checkpoint/index.js";
import type { AuditWriter } from "../runtime/index.js";
import type { Store } from "../store/index.js";
import type { Authorizer } from "./auth/authorizer.js";
import type { TokenStore } from "./auth/token-store.js";
import type { EventBus } from "./events.js";
import type { ApiRecords } from "./langgraph/api-records.js";
import type { Assistant } from "./langgraph/assistants.js";
import type { RunManager } from "./langgraph/run-manager.js";
import type { ChangeWatcher } from "./watcher.js";

/** Everything the routes use: the services the server is a thin layer over. */
export interface ServerContext {
  store: Store;
  saver: DurableSaver;
  runs: RunStore;
  records: ApiRecords;
  assistants: Map<string, Assistant>;
  manager: RunManager;
  bus: EventBus;
  /** Publishes changes made on the database by any process (jobs, approvals, scans). */
  watcher: ChangeWatcher;
  audit: AuditWriter;
  tokens: TokenStore;
  authorizer: Authorizer;
  log: Logger;
  /** False while starting or shutting down (what /readyz answers). */
  ready(): boolean;
}
