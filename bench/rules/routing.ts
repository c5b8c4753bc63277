/**
 * The routing workload: a pack of routing rules over a large working memory of events, where
 * each decision changes one event and runs the rules to quiescence. Rules test an event's kind,
 * region and severity, and half of them also join the event's tenant against a tenant policy,
 * so one change touches a few rules, not all of them; an engine that re-matches everything
 * pays for the 10,000 events on every decision.
 *
 * A decision is two top-level forms, `(assert (change (id eN) (severity S)))` and `(run)`: the
 * `apply-change` rule moves the new severity onto the event with `modify`, then the routing
 * rules that now match fire. The first routing rule to fire records its verdict in the event's
 * `route` fact (rule and severity), which retires the other rules' activations for that change;
 * working memory stays the same size.
 */
import { Rng } from "../../test/rules/differential/generate.js";

export interface RoutingShape {
  rules: number;
  events: number;
  decisions: number;
  seed?: number;
}

const KINDS = 20;
const REGIONS = 5;
const TENANTS = 50;

function routingRule(rng: Rng, index: number): string {
  const kind = `k${rng.int(1, KINDS)}`;
  const region = `r${rng.int(1, REGIONS)}`;
  const threshold = rng.int(1, 9);
  const tenantJoin = index % 2 === 0 ? " (tenant-policy (tenant ?t) (tier gold))" : "";
  return [
    `(defrule route-${index}`,
    `(event (id ?id) (kind ${kind}) (region ${region}) (tenant ?t) (severity ?s&:(>= ?s ${threshold})))${tenantJoin}`,
    "?old <- (route (event ?id) (severity ~?s))",
    `=> (modify ?old (by ${index}) (severity ?s)))`,
  ].join(" ");
}

/** A batch program: the pack, the events, then `decisions` single-event changes. */
export function routingProgram(shape: RoutingShape): string {
  const rng = new Rng(shape.seed ?? 7);
  const lines = [
    "(deftemplate event (slot id) (slot kind) (slot region) (slot tenant) (slot severity (type INTEGER)))",
    "(deftemplate tenant-policy (slot tenant) (slot tier))",
    "(deftemplate route (slot event) (slot by (default 0)) (slot severity (default 0)))",
    "(deftemplate change (slot id) (slot severity (type INTEGER)))",
    "(defrule apply-change (declare (salience 100)) ?c <- (change (id ?id) (severity ?s)) ?e <- (event (id ?id)) => (retract ?c) (modify ?e (severity ?s)))",
  ];
  for (let index = 1; index <= shape.rules; index++) lines.push(routingRule(rng, index));
  const facts: string[] = [];
  for (let tenant = 1; tenant <= TENANTS; tenant++) {
    facts.push(`(tenant-policy (tenant t${tenant}) (tier ${tenant % 3 === 0 ? "gold" : "basic"}))`);
  }
  for (let event = 1; event <= shape.events; event++) {
    facts.push(
      `(event (id e${event}) (kind k${rng.int(1, KINDS)}) (region r${rng.int(1, REGIONS)}) (tenant t${rng.int(1, TENANTS)}) (severity 0))`,
      `(route (event e${event}))`,
    );
  }
  // One assert per line, not a deffacts: CLIPS parses a 20,000-fact deffacts in quadratic time.
  lines.push("(reset)", ...facts.map((fact) => `(assert ${fact})`), "(run)");
  for (let decision = 0; decision < shape.decisions; decision++) {
    const event = rng.int(1, shape.events);
    lines.push(`(assert (change (id e${event}) (severity ${rng.int(0, 9)})))`, "(run)");
  }
  lines.push('(printout t "decisions done" crlf)', "(exit)");
  return `${lines.join("\n")}\n`;
}
