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
import { templateConstructs, templatesMatchValidation } from "../template-facts.js";
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
  const loaded = loadPacks(doc, packs);
  if ("failed" in loaded) throw loaded.error;
  const failed = defineRules(doc, loaded.engine);
  if (failed) throw failed.error;
  return loaded.engine;
}

/**
 * Makes sure the engine of `doc` builds: returns a problem for the pack or rule the engine
 * refuses — what validation's parse cannot see (a variable a test uses but no pattern binds, a
 * pack's syntax), so such a document fails to compile instead of failing a run. The engine is
 * built now and kept for the first run, or (see mayDefer) built by the first run.
 */
export function prepareEngine(doc: IRDocument, packs: readonly string[]): Problem[] {
  const loaded = loadPacks(doc, packs);
  if ("failed" in loaded) return [packProblem(doc, loaded.failed, loaded.error)];
  if (mayDefer(doc, loaded.engine)) return [];
  const failed = defineRules(doc, loaded.engine);
  if (failed) {
    const def = ruleDefinitions(doc)[failed.rule] as RuleDefinition;
    return [ruleProblem(doc, engineRuleProblem(failed.error, def, failed.rule))];
  }
  poolOf(doc).push(loaded.engine);
  return [];
}

/**
 * Building a large document's rules costs far more than validating and compiling the rest of
 * it, so it is put off to the first run that needs the engine — but only when that cannot move
 * an error from compile time to run time: the packs have loaded (into `engine`), and every rule
 * is one the check at validation fully covered (`ParsedRule.definable`), parsed as the engine
 * will define it (no pack templates). Otherwise the rules are built now. See docs/ir.md.
 */
function mayDefer(doc: IRDocument, engine: RuleEngine): boolean {
  if (rulesDefinable(doc) !== true) return false;
  // A template-style document's own templates are the ones validation parsed its rules
  // against; any other template (a pack's) could change how a rule parses.
  const own = templateSources.get(doc) ?? "";
  if (own !== "" && templatesValidated.get(doc) !== true) return false;
  const ownCount = own === "" ? 0 : own.split("\n").length;
  return engine.templateNames().length === ownCount;
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

/** A new engine for `doc` with its packs loaded, or the index of the pack that failed. */
function loadPacks(
  doc: IRDocument,
  packs: readonly string[],
): { engine: RuleEngine } | { failed: number; error: unknown } {
  const engine = newEngine(doc);
  for (const [index, source] of packs.entries()) {
    try {
      engine.load(source);
    } catch (error) {
      return { failed: index, error };
    }
  }
  return { engine };
}

/** Defines `doc`'s rules on `engine` and resets it; the index of the rule that failed, if one. */
function defineRules(
  doc: IRDocument,
  engine: RuleEngine,
): { rule: number; error: unknown } | undefined {
  const rules = ruleDefinitions(doc);
  for (const [index, rule] of rules.entries()) {
    try {
      engine.defineRule(rule);
    } catch (error) {
      return { rule: index, error };
    }
  }
  engine.reset();
  return undefined;
}

const nodeSets = new WeakMap<IRDocument, ReadonlySet<string>>();
const templateSources = new WeakMap<IRDocument, string>();

/**
 * Records the state fields of a compiled document: a template-style document's engine defines
 * a template per field (template-facts.ts). Called by compileDocument before the first engine.
 */
export function setStateFields(doc: IRDocument, fields: readonly string[]): void {
  templateSources.set(doc, templateConstructs(doc, fields));
  templatesValidated.set(doc, templatesMatchValidation(doc, fields));
}

const templatesValidated = new WeakMap<IRDocument, boolean>();

/**
 * An empty engine for a run of `doc`, with `(ir-action …)` for pack rules (pack-actions.ts) and,
 * for a template-style document, the templates its state and rules need.
 */
function newEngine(doc: IRDocument): RuleEngine {
  let nodes = nodeSets.get(doc);
  if (!nodes) {
    nodes = new Set(doc.nodes.map((node) => node.id));
    nodeSets.set(doc, nodes);
  }
  const engine = new RuleEngine();
  installActionFunction(engine, nodes);
  let templates = templateSources.get(doc);
  if (templates === undefined) {
    templates = templateConstructs(doc, Object.keys(doc.state_schema));
    templateSources.set(doc, templates);
  }
  if (templates !== "") engine.load(templates);
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
