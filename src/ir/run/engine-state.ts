import { toKeelError } from "../../core/index.js";
import {
  type EngineSnapshot,
  ruleProblem as engineRuleProblem,
  type RuleDefinition,
  RuleEngine,
} from "../../rules/index.js";
import type { IRDocument } from "../models/index.js";
import { type Problem, renderActual } from "../problems.js";
import { ruleDefinitions, ruleProblem, rulesDefinable } from "../rule-conditions.js";
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
  const built = buildEngine(doc, packs);
  if ("failed" in built) throw built.error;
  return built.engine;
}

/**
 * Makes sure the engine of `doc` builds: returns a problem for the pack or rule the engine
 * refuses — what validation's parse cannot see (a variable a test uses but no pattern binds, a
 * pack's syntax), so such a document fails to compile instead of failing a run. The engine is
 * built now and kept for the first run, or (see deferBuild) built by the first run.
 */
export function prepareEngine(doc: IRDocument, packs: readonly string[]): Problem[] {
  const deferred = deferBuild(doc, packs);
  if (deferred !== "build now") return deferred;
  const built = buildEngine(doc, packs);
  if ("failed" in built) {
    const { failed, error } = built;
    if (failed.rule !== undefined) {
      const def = ruleDefinitions(doc)[failed.rule] as RuleDefinition;
      return [ruleProblem(doc, engineRuleProblem(error, def, failed.rule))];
    }
    return [packProblem(doc, failed.pack ?? 0, error)];
  }
  poolOf(doc).push(built.engine);
  return [];
}

/**
 * Building a large document's rules costs far more than validating and compiling the rest of
 * it, so it is put off to the first run that needs the engine — but only when that cannot move
 * an error from compile time to run time: the packs load now, and every rule is one the check
 * at validation fully covered (`ParsedRule.definable`), parsed as the engine will define it (no
 * pack templates). Otherwise the rules are built now. See docs/ir.md.
 */
function deferBuild(doc: IRDocument, packs: readonly string[]): Problem[] | "build now" {
  if (rulesDefinable(doc) !== true) return "build now";
  const engine = newEngine(doc);
  for (const [index, source] of packs.entries()) {
    try {
      engine.load(source);
    } catch (error) {
      return [packProblem(doc, index, error)];
    }
  }
  return engine.templateNames().length === 0 ? [] : "build now";
}

function packProblem(doc: IRDocument, pack: number, error: unknown): Problem {
  const keel = toKeelError(error);
  return {
    code: "pack_invalid",
    path: `/governance/${pack}`,
    message: `The pack's CLIPS source does not load: ${keel.message}`,
    expected: "deftemplate, deffacts and defrule constructs (docs/rules.md)",
    actual: renderActual(doc.governance[pack]?.id),
    hint: "Fix the pack file, or mount another version.",
  };
}

type Built = { engine: RuleEngine } | { failed: { pack?: number; rule?: number }; error: unknown };

function buildEngine(doc: IRDocument, packs: readonly string[]): Built {
  const engine = newEngine(doc);
  for (const [index, source] of packs.entries()) {
    try {
      engine.load(source);
    } catch (error) {
      return { failed: { pack: index }, error };
    }
  }
  const rules = ruleDefinitions(doc);
  for (const [index, rule] of rules.entries()) {
    try {
      engine.defineRule(rule);
    } catch (error) {
      return { failed: { rule: index }, error };
    }
  }
  engine.reset();
  return { engine };
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

/**
 * Snapshots the engine for the graph state and keeps it live for the next step. The explanation
 * log is dropped first: routing reads each step's firings from run() and `(ir-action …)` only the
 * firing being executed, while a kept log would make every step's checkpoint carry every firing
 * before it — of this run and, for a pooled engine, of earlier runs (other threads) too.
 */
export function keep(engine: RuleEngine): EngineSnapshot {
  engine.forgetFirings();
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
  const pool = poolOf(doc);
  if (pool.length >= POOL_SIZE) return;
  engine.reset();
  pool.push(engine);
}

function poolOf(doc: IRDocument): RuleEngine[] {
  let pool = pools.get(doc);
  if (!pool) {
    pool = [];
    pools.set(doc, pool);
  }
  return pool;
}
