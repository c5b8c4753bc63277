import { type Clock, KeelError, systemClock } from "../../core/index.js";
import { RuleEngine } from "../../rules/index.js";
import type { AuditWriter } from "../audit/audit-writer.js";
import {
  type AutonomyLevel,
  type ExecutionMode,
  higherRisk,
  type RiskLevel,
} from "../contracts/enums.js";
import type { MessageEvent } from "../contracts/message-event.js";
import type { RoutingDecision } from "../contracts/routing-decision.js";
import { runtimeDb } from "../db/tables.js";
import { decideGate, type GateOutcome, type GateTightening } from "../policy/gate-policy.js";
import { gateSpecsFor } from "../policy/gate-specs.js";
import { eventFacts, intentOf } from "./event-facts.js";
import {
  type FastPath,
  parseRoutingConfig,
  type RouteRule,
  type RoutingConfig,
  type RoutingConfigInput,
} from "./routing-config.js";

/** What routing an event came to: the seed's decision, the gate outcome and what to run. */
export interface RouteResult {
  decision: RoutingDecision;
  /** The gate for the routed work (`block` means: do not run it). */
  gate: GateOutcome;
  /** The handler to run, or null when nothing names one. */
  handler: string | null;
  /**
   * Every matched rule's gate demand. A governed run keeps them and applies them to each of its
   * gated calls at the run's own autonomy, so a rule's tightening reaches the tool call.
   */
  gateDemands: GateTightening[];
  /** How long approvals for the routed work last (the configuration's `approval_ttl_seconds`). */
  approvalTtlSeconds: number;
}

const MODE_ORDER: readonly ExecutionMode[] = ["fast", "task", "gated", "sandbox"];

/**
 * Routes MessageEvents deterministically: first the fast paths (an exact intent mapped to a
 * handler), then every rule over the event's facts (the CLIPS rule engine). Rules may raise the
 * risk, add scopes, ask for a stricter execution mode or gate, name the intent and the handler;
 * they never loosen anything. The gate is the policy's decision for (autonomy, risk), tightened
 * by the rules. No model is in the loop: the same event and configuration always give the same
 * decision (`used_llm` is false).
 *
 * @example
 * const router = new Router({
 *   fast_paths: [{ intent: "timer.set", handler: "timers" }],
 *   rules: [{ id: "big-refund", when: "(field amount ?a&:(> ?a 100))", risk_level: "high", handler: "refunds" }],
 * });
 * const { decision, gate } = router.decide(event, { autonomy: "A2" });
 * decision.execution_mode; // "gated" for a refund over 100 at A2
 */
export class Router {
  readonly config: RoutingConfig;
  readonly #engine = new RuleEngine();
  readonly #fastPaths: Map<string, FastPath>;
  readonly #clock: Clock;

  /** Validates the configuration (ROUTING_INVALID lists every problem) and compiles the rules. */
  constructor(config: RoutingConfigInput, options: { clock?: Clock } = {}) {
    this.config = parseRoutingConfig(config);
    this.#clock = options.clock ?? systemClock;
    this.#fastPaths = new Map(this.config.fast_paths.map((path) => [path.intent, path]));
    const count = this.config.rules.length;
    this.config.rules.forEach((rule, index) => {
      try {
        // Declaration order is firing order: the first rule has the highest salience.
        this.#engine.defineRule({
          name: rule.id,
          salience: count - index,
          when: rule.when,
          actions: [index],
        });
      } catch (error) {
        throw new KeelError("ROUTING_INVALID", `Routing rule "${rule.id}" does not parse.`, {
          cause: error,
          details: { rule: rule.id, path: `/rules/${index}/when` },
          hint: `Fix the CLIPS conditions of rule "${rule.id}": ${(error as Error).message}`,
        });
      }
    });
  }

  /** Decides how to route `event` at the given autonomy level. Pure and deterministic. */
  decide(event: MessageEvent, options: { autonomy: AutonomyLevel }): RouteResult {
    const intentHint = intentOf(event);
    const fastPath = intentHint === null ? undefined : this.#fastPaths.get(intentHint);
    const matched = this.#match(event);

    let risk: RiskLevel = fastPath?.risk_level ?? this.config.default_risk;
    let mode: ExecutionMode = fastPath ? "fast" : "task";
    let intent: string | null = fastPath ? fastPath.intent : null;
    let handler: string | null = fastPath?.handler ?? null;
    const scopes = new Set(fastPath?.required_scopes ?? []);
    const tightenings: GateTightening[] = [];
    const notes: string[] = [];
    if (fastPath) notes.push(`fast path "${fastPath.intent}" → ${fastPath.handler}`);
    for (const rule of matched) {
      if (rule.risk_level !== null) risk = higherRisk(risk, rule.risk_level);
      if (
        rule.execution_mode !== null &&
        rank(MODE_ORDER, rule.execution_mode) > rank(MODE_ORDER, mode)
      )
        mode = rule.execution_mode;
      intent ??= rule.intent;
      handler ??= rule.handler;
      for (const scope of rule.required_scopes) scopes.add(scope);
      if (rule.gate !== null)
        tightenings.push({ ruleId: rule.id, decision: rule.gate, reason: rule.note ?? rule.id });
      notes.push(`rule ${rule.id}${rule.note ? `: ${rule.note}` : ""}`);
    }
    intent ??= intentHint;
    handler ??= this.config.default_handler;
    const gate = decideGate({
      autonomy: options.autonomy,
      risk,
      policy: this.config.policy ?? undefined,
      tightenings,
    });
    if (gate.decision !== "allow" && rank(MODE_ORDER, mode) < rank(MODE_ORDER, "gated"))
      mode = "gated";
    if (matched.length === 0 && !fastPath) notes.push("no fast path or rule matched");
    notes.push(`gate ${gate.explanation}`);
    if (gate.refusedLoosenings.length > 0) {
      notes.push(
        `ignored (a rule may not loosen a gate): ${gate.refusedLoosenings.map((t) => t.ruleId).join(", ")}`,
      );
    }
    const requiredScopes = [...scopes];
    const decision: RoutingDecision = {
      trace_id: event.correlation.trace_id,
      event_id: event.event_id,
      decided_at: new Date(this.#clock.now()).toISOString(),
      execution_mode: mode,
      match: {
        matched_fastpath: fastPath?.intent ?? null,
        matched_rule_ids: matched.map((rule) => rule.id),
        used_llm: false,
      },
      intent,
      confidence: null,
      required_scopes: requiredScopes,
      risk_level: risk,
      gates: gateSpecsFor(gate, {
        requiredScopes,
        expiresInSeconds: this.config.approval_ttl_seconds,
      }),
      notes: notes.join("; "),
    };
    return {
      decision,
      gate,
      handler,
      gateDemands: tightenings,
      approvalTtlSeconds: this.config.approval_ttl_seconds,
    };
  }

  /**
   * Decides and audits (`route.decided`, or `route.blocked` when the gate blocks; refused
   * loosenings as `rule.loosening_refused`), in one transaction: a failed audit fails routing.
   */
  async route(
    event: MessageEvent,
    options: { autonomy: AutonomyLevel; audit: AuditWriter },
  ): Promise<RouteResult> {
    const result = this.decide(event, options);
    const { decision, gate } = result;
    const blocked = gate.decision === "block";
    const audit = options.audit;
    await runtimeDb(audit.store)
      .transaction()
      .execute(async (tx) => {
        await audit.write(
          decision.trace_id,
          {
            stage: "route",
            type: blocked ? "route.blocked" : "route.decided",
            summary: `${decision.intent ?? "event"} routed ${decision.execution_mode} (risk ${decision.risk_level}, gate ${gate.decision}) → ${result.handler ?? "no handler"}`,
            outcome: blocked ? "failure" : "success",
            refs: { event_id: decision.event_id },
            riskLevel: decision.risk_level,
            autonomyLevel: options.autonomy,
            payload: { decision, gate: gate.decision, handler: result.handler },
          },
          tx,
        );
        for (const refused of gate.refusedLoosenings) {
          await audit.write(
            decision.trace_id,
            {
              stage: "rule",
              type: "rule.loosening_refused",
              summary: `rule ${refused.ruleId} asked for "${refused.decision}", looser than the policy's "${gate.base}"; ignored`,
              outcome: "suppressed",
              refs: { event_id: decision.event_id },
            },
            tx,
          );
        }
      });
    return result;
  }

  #match(event: MessageEvent): RouteRule[] {
    const engine = this.#engine;
    engine.reset();
    for (const fact of eventFacts(event)) engine.assert(fact);
    const fired = new Set<number>();
    for (const firing of engine.run()) {
      const index = (firing.actions ?? [])[0];
      if (typeof index === "number") fired.add(index);
    }
    // Rule order, not firing order, so that the result never depends on the agenda's tie-breaks.
    return [...fired].sort((a, b) => a - b).map((index) => this.config.rules[index] as RouteRule);
  }
}

function rank<T>(order: readonly T[], value: T): number {
  return order.indexOf(value);
}
