import { type EngineSnapshot, RuleEngine } from "../../rules/index.js";
import type { IRDocument } from "../models/index.js";
import { installActionFunction } from "./pack-actions.js";

/**
 * The rule engine of a run. Its state travels in the graph state as a snapshot (so checkpoints
 * keep asserted facts and refraction); the live engine behind the latest snapshot is cached so
 * a step does not rebuild it. A snapshot is taken once: a second user (a parallel branch) or a
 * snapshot read back from a checkpoint restores a fresh engine from it.
 */
const live = new WeakMap<EngineSnapshot, RuleEngine>();

/**
 * Engines of finished runs, reset and ready for the next run of the same document: building one
 * (parsing every rule) costs far more than a step, so a run that ends hands its engine back.
 */
const pools = new WeakMap<IRDocument, RuleEngine[]>();
const POOL_SIZE = 32;

export function engineFor(
  doc: IRDocument,
  packs: readonly string[],
  snapshot: EngineSnapshot | null,
): RuleEngine {
  if (snapshot) {
    const cached = live.get(snapshot);
    if (cached) {
      live.delete(snapshot);
      return cached;
    }
    const engine = newEngine(doc);
    engine.restore(snapshot);
    return engine;
  }
  const pooled = pools.get(doc)?.pop();
  if (pooled) return pooled;
  const engine = newEngine(doc);
  for (const source of packs) engine.load(source);
  const count = doc.rules.length;
  doc.rules.forEach((rule, index) => {
    // Declaration order is priority: the first rule gets the highest salience.
    engine.defineRule({
      name: rule.id,
      salience: count - index,
      when: rule.when,
      actions: rule.then,
    });
  });
  engine.reset();
  return engine;
}

const nodeSets = new WeakMap<IRDocument, ReadonlySet<string>>();

/** An empty engine for a run of `doc`, with `(ir-action …)` for pack rules (pack-actions.ts). */
function newEngine(doc: IRDocument): RuleEngine {
  let nodes = nodeSets.get(doc);
  if (!nodes) {
    nodes = new Set(doc.nodes.map((node) => node.id));
    nodeSets.set(doc, nodes);
  }
  const engine = new RuleEngine();
  installActionFunction(engine, nodes);
  return engine;
}

/** Snapshots the engine for the graph state and keeps it live for the next step. */
export function keep(engine: RuleEngine): EngineSnapshot {
  const snapshot = engine.snapshot();
  live.set(snapshot, engine);
  return snapshot;
}

/** Gives the engine of a run that ended back to its document's pool, reset. */
export function release(doc: IRDocument, snapshot: EngineSnapshot | null): void {
  if (!snapshot) return;
  const engine = live.get(snapshot);
  if (!engine) return;
  live.delete(snapshot);
  let pool = pools.get(doc);
  if (!pool) {
    pool = [];
    pools.set(doc, pool);
  }
  if (pool.length >= POOL_SIZE) return;
  engine.reset();
  pool.push(engine);
}
