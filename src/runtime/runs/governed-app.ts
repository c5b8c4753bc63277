import { KeelError, toKeelError } from "../../core/index.js";
import type { Store } from "../../store/index.js";
import type { AutonomyLevel, RiskLevel } from "../contracts/enums.js";
import type { MessageEvent } from "../contracts/message-event.js";
import { runtimeDb } from "../db/tables.js";
import { loadRunDocument } from "../documents/governed-documents.js";
import { Router } from "../routing/router.js";
import type { RoutingConfigInput } from "../routing/routing-config.js";
import type { ToolRegistry } from "../tools/tool-registry.js";
import {
  type GovernedGraph,
  type GovernedRunResult,
  GovernedRuntime,
  type GovernedRuntimeOptions,
} from "./governed-runtime.js";
import type { ReplayReport } from "./replay-report.js";
import { loadGrant, type RunGrant } from "./run-grants.js";

/**
 * What a governed application gives operators' tools so they can continue and replay its runs
 * without its process: the tools, the graph, and the runtime options it runs with. A module
 * exports it as `keelApp` (a function of the store); a run records the module with
 * `start({ app })`, and `keel approvals approve|deny`, `keel runs resume` and `keel runs replay`
 * load it from there.
 *
 * @example
 * export const keelApp: GovernedAppFactory = ({ store }) => ({
 *   tools: refundTools(store),
 *   graph: (runtime) => refundGraph(runtime),
 * });
 */
export interface GovernedApp {
  tools: ToolRegistry;
  /** The compiled graph, with `runtime.checkpointer` as its checkpointer. */
  graph(runtime: GovernedRuntime): GovernedGraph;
  /** Runtime options besides the store and the tools (policy, approval capability, redaction…). */
  runtime?: Omit<GovernedRuntimeOptions, "store" | "tools">;
}

/** The `keelApp` export of an application module. */
export type GovernedAppFactory = (context: { store: Store }) => GovernedApp | Promise<GovernedApp>;

/** A runtime and graph built from an application module, on one store. */
export interface LoadedGovernedApp {
  runtime: GovernedRuntime;
  graph: GovernedGraph;
}

/**
 * Imports an application module and builds its runtime and graph on `store`. This runs the
 * module's code: only modules a run recorded (by its starter) or an operator names are loaded.
 * `APP_MODULE_INVALID` when it cannot be imported or exports no `keelApp` function.
 */
export async function loadGovernedApp(module: string, store: Store): Promise<LoadedGovernedApp> {
  let exported: Record<string, unknown>;
  try {
    exported = await importApp(module);
  } catch (cause) {
    throw new KeelError("APP_MODULE_INVALID", `Cannot import the application module ${module}.`, {
      cause,
      details: { module, reason: (cause as Error).message },
      hint: "Check that the module exists and that this process can import it (a .ts module needs a TypeScript loader such as tsx: npm run keel -- …).",
    });
  }
  const factory = exported.keelApp;
  if (typeof factory !== "function") {
    throw new KeelError("APP_MODULE_INVALID", `${module} exports no keelApp function.`, {
      details: { module },
      hint: "Export `keelApp = ({ store }) => ({ tools, graph: (runtime) => compiledGraph })`.",
    });
  }
  const app = (await (factory as GovernedAppFactory)({ store })) as GovernedApp;
  const runtime = new GovernedRuntime({ ...app.runtime, store, tools: app.tools });
  return { runtime, graph: app.graph(runtime) };
}

/** The runtime and graph of a governed IR document run (the document it recorded). */
async function documentApp(store: Store, runId: string): Promise<LoadedGovernedApp> {
  const { runtime, compiled } = await loadRunDocument(store, runId);
  return { runtime, graph: compiled.graph };
}

/**
 * Imports an application module. A TypeScript module (`.ts`, `.mts`, `.cts`) that this process
 * cannot import on its own (the built `keel` bin runs without a TypeScript loader) is imported
 * through tsx when it is installed; otherwise the import's error stands.
 */
async function importApp(module: string): Promise<Record<string, unknown>> {
  try {
    return (await import(module)) as Record<string, unknown>;
  } catch (error) {
    if (!/\.[mc]?ts$/.test(module)) throw error;
    // A variable specifier: tsx is an optional helper, not a dependency of the package.
    const api = "tsx/esm/api";
    let tsx: { tsImport(specifier: string, parent: string): Promise<Record<string, unknown>> };
    try {
      tsx = (await import(api)) as typeof tsx;
    } catch {
      throw error;
    }
    return tsx.tsImport(module, import.meta.url);
  }
}

/**
 * The runtime and graph a governed run recorded: its application module, or its IR document;
 * null when it recorded neither (its starter's process alone can continue it).
 */
export async function loadRunApp(
  store: Store,
  runId: string,
  grant: RunGrant,
): Promise<LoadedGovernedApp | null> {
  if (grant.app !== null) return loadGovernedApp(grant.app, store);
  return documentApp(store, runId).catch((error: unknown) => {
    // No recorded document (as opposed to a document file that went missing).
    const keel = toKeelError(error);
    const details = keel.details as { runId?: string } | undefined;
    if (keel.code === "NOT_FOUND" && details?.runId === runId) return null;
    throw error;
  });
}

/** What continuing a governed run came to, for an operator. */
export type Continuation =
  | { continued: true; result: GovernedRunResult }
  | {
      continued: false;
      reason: "not-governed" | "no-app" | "not-paused" | "still-waiting" | "failed";
      message: string;
      runId: string | null;
      error?: { code: string; message: string };
    };

/**
 * Continues a paused governed run with the application module it recorded: what an operator's
 * decision (`keel approvals approve|deny`) or settlement leads to. Reports instead of throwing
 * when there is nothing to continue (no recorded module, other approvals pending, not paused)
 * or when the run itself failed (a denial, an expiry, a tool error); throws only when the run
 * could not be continued (the module failed to load, another process holds the run).
 */
export async function continueGovernedRun(store: Store, runId: string): Promise<Continuation> {
  const grant = await loadGrant(runtimeDb(store), runId);
  if (!grant) {
    return {
      continued: false,
      reason: "not-governed",
      runId,
      message: `Run ${runId} is not a governed run.`,
    };
  }
  const loaded = await loadRunApp(store, runId, grant);
  if (loaded === null) {
    return {
      continued: false,
      reason: "no-app",
      runId,
      message: `Run ${runId} recorded no application module; the process that started it must resume it (GovernedRuntime.resume).`,
    };
  }
  const { runtime, graph } = loaded;
  const run = await runtime.runs.get(runId);
  if (run.status !== "paused") {
    return {
      continued: false,
      reason: "not-paused",
      runId,
      message: `Run ${runId} is ${run.status}; only a paused run is continued.`,
    };
  }
  try {
    return { continued: true, result: await runtime.resume(runId, graph) };
  } catch (error) {
    const keel = toKeelError(error);
    if (keel.code === "APPROVAL_PENDING") {
      return { continued: false, reason: "still-waiting", runId, message: keel.message };
    }
    if ((await runtime.runs.get(runId)).status === "failed") {
      return {
        continued: false,
        reason: "failed",
        runId,
        message: `Run ${runId} failed (${keel.code}): ${keel.message}`,
        error: { code: keel.code, message: keel.message },
      };
    }
    throw error;
  }
}

/** What may change in a counterfactual replay by an operator's tool (`keel runs replay`). */
export interface ReplayChanges {
  input?: unknown;
  autonomy?: AutonomyLevel;
  risk?: RiskLevel;
  /** Routing rules to route the run's original event with (the changed rules' decision). */
  routing?: RoutingConfigInput;
}

/**
 * Replays a governed run with the application module it recorded: strict without `changes`,
 * counterfactual with them (changed input, autonomy, risk, or routing rules applied to the
 * original event). Strict divergences throw as `GovernedRuntime.replay` does.
 */
export async function replayGovernedRun(
  store: Store,
  runId: string,
  changes?: ReplayChanges,
): Promise<ReplayReport> {
  const grant = await loadGrant(runtimeDb(store), runId);
  if (!grant) {
    throw new KeelError("RUN_NOT_FOUND", `Run "${runId}" is not a governed run.`, {
      details: { runId },
      hint: "Replays need a governed run (GovernedRuntime.start); `keel runs list` shows runs.",
    });
  }
  if (grant.app === null) {
    throw new KeelError(
      "APP_MODULE_INVALID",
      `Run ${runId} recorded no application module, so its graph cannot be loaded here.`,
      {
        details: { runId },
        hint: "Start runs with `app` (the module exporting keelApp), or replay in the application's own process (GovernedRuntime.replay).",
      },
    );
  }
  const { runtime, graph } = await loadGovernedApp(grant.app, store);
  if (!changes) return runtime.replay(runId, graph);
  const { routing, ...rest } = changes;
  const route =
    routing === undefined
      ? undefined
      : new Router(routing).decide(await originalEvent(store, grant.eventId, runId), {
          autonomy: changes.autonomy ?? grant.autonomy,
        });
  return runtime.replay(runId, graph, { counterfactual: { ...rest, ...(route ? { route } : {}) } });
}

/** The event that triggered a run, as ingested. */
async function originalEvent(
  store: Store,
  eventId: string | null,
  runId: string,
): Promise<MessageEvent> {
  const row =
    eventId === null
      ? undefined
      : await runtimeDb(store)
          .selectFrom("state_events")
          .select("event_json")
          .where("id", "=", eventId)
          .executeTakeFirst();
  if (!row) {
    throw new KeelError(
      "INVALID_ARGUMENT",
      `Run ${runId} has no ingested event to route again, so changed routing rules cannot apply.`,
      { details: { runId, eventId }, hint: "Change the input, autonomy or risk instead." },
    );
  }
  return JSON.parse(row.event_json) as MessageEvent;
}
