/** The engine's state as plain JSON (for checkpoints), and the checks a restore starts with. */
import { KeelError } from "../core/index.js";
import type { EngineSnapshot, Firing } from "./engine-types.js";
import type { FocusAgenda } from "./focus-agenda.js";
import { matchesOf } from "./rete/memory.js";
import { encodeValue, type Value } from "./values.js";
import type { WorkingMemory } from "./working-memory.js";

/** The whole state as plain JSON: constructs, facts, agenda (with refraction), counters. */
export function snapshotOf(
  constructLog: readonly { source: string; actions?: readonly unknown[]; module?: string }[],
  wm: WorkingMemory,
  agenda: FocusAgenda,
  firings: readonly Firing[],
  globals: readonly [string, Value][] = [],
  objects: {
    instances: { name: string; cls: string; tag: number; slots: [string, Value][] }[];
    gensym: number;
    heldGensyms?: string[];
    conservationClasses?: string[];
    conservation?: boolean;
  } = {
    instances: [],
    gensym: 1,
  },
): EngineSnapshot {
  return {
    format: "keel.rules/1",
    constructs: constructLog.map((c) => ({
      source: c.source,
      ...(c.actions ? { actions: c.actions } : {}),
      ...(c.module ? { module: c.module } : {}),
    })),
    facts: wm
      .all()
      .map((f) => ({ id: f.factId, relation: f.relation, values: f.values.map(encodeValue) })),
    nextFactId: wm.nextId,
    agenda: agenda.list().map((a) => ({
      rule: a.rule.name,
      facts: matchesOf(a.token, a.rule.display.length).map((m) => (m ? m.fact.factId : null)),
      timetag: a.timetag,
      ...(a.rule.disjunct ? { disjunct: a.rule.disjunct } : {}),
    })),
    clock: agenda.timetagClock,
    ...(agenda.stack.length !== 1 || agenda.stack[0] !== "MAIN"
      ? { focus: [...agenda.stack] }
      : {}),
    firings: [...firings],
    ...(globals.length
      ? { globals: Object.fromEntries(globals.map(([name, v]) => [name, encodeValue(v)])) }
      : {}),
    ...(objects.instances.length
      ? {
          instances: objects.instances.map((i) => ({
            name: i.name,
            cls: i.cls,
            tag: i.tag,
            slots: Object.fromEntries(i.slots.map(([k, v]) => [k, encodeValue(v)])),
          })),
        }
      : {}),
    ...(objects.gensym !== 1 ? { gensym: objects.gensym } : {}),
    ...(objects.heldGensyms?.length ? { heldGensyms: objects.heldGensyms } : {}),
    ...(objects.conservationClasses?.length
      ? { conservationClasses: objects.conservationClasses }
      : {}),
    ...(objects.conservation ? { classDefaultsMode: "conservation" as const } : {}),
  };
}

/** Throws unless `s` is a snapshot this engine wrote. */
export function checkSnapshot(s: EngineSnapshot): void {
  if (s.format !== "keel.rules/1") {
    throw new KeelError(
      "INVALID_ARGUMENT",
      `Unknown rule-engine snapshot format ${String(s.format)}.`,
      { hint: "Pass a value returned by snapshot()." },
    );
  }
}
