/**
 * Writes the generated half of the differential corpus: random but valid CLIPS programs from a
 * fixed seed, so the same files come out on every machine.
 *
 *   npx tsx test/rules/differential/generate.ts    # rewrites generated/gen-NN.clp
 *   npx tsx test/rules/differential/record.ts generated
 *
 * Each program declares templates and ordered relations, rules whose patterns join on shared
 * variables, use connectives, predicates, `not`, `exists`, `or` and `test`, and whose right-hand
 * sides print their bindings and assert, retract, modify or duplicate facts; then it runs a
 * script of asserts, retracts by index, `agenda`, `facts` and `run N`. Every run has a limit so
 * that rules which undo each other end. Values are drawn from tiny domains so joins and
 * duplicate facts are frequent.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DIFFERENTIAL_DIR } from "./programs.js";

/** The seed of the committed corpus; change it only together with a new recording. */
export const GENERATOR_SEED = 0x6b65656c;
/** How many programs of each flavour the committed corpus holds. */
export const GENERATED_COUNT = 36;
export const AGENDA_ORDER_COUNT = 12;

type FieldType = "int" | "sym";

interface Relation {
  name: string;
  fields: FieldType[];
}

interface Slot {
  name: string;
  type: FieldType;
}

interface Template {
  name: string;
  slots: Slot[];
  /** The template's one multislot, holding symbols. */
  multislot: string;
}

interface Schema {
  relations: Relation[];
  templates: Template[];
}

const SYMBOLS = ["a", "b", "c"] as const;

/** mulberry32: a small, well-mixed 32-bit PRNG; deterministic across platforms. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [low, high]. */
  int(low: number, high: number): number {
    return low + Math.floor(this.next() * (high - low + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error("pick from an empty list");
    return item;
  }
}

function literal(rng: Rng, type: FieldType): string {
  return type === "int" ? String(rng.int(1, 4)) : rng.pick(SYMBOLS);
}

function makeSchema(rng: Rng): Schema {
  const relations: Relation[] = ["p", "q", "r"].slice(0, rng.int(2, 3)).map((name) => ({
    name,
    fields: Array.from({ length: rng.int(1, 3) }, () => rng.pick<FieldType>(["int", "sym"])),
  }));
  const templates: Template[] = ["item", "task"].slice(0, rng.int(1, 2)).map((name) => ({
    name,
    slots: [
      { name: "k", type: "sym" as const },
      { name: "v", type: "int" as const },
      ...(rng.chance(0.5) ? [{ name: "w", type: "int" as const }] : []),
    ],
    multislot: "tags",
  }));
  return { relations, templates };
}

/** Variables bound so far in a rule's left-hand side, by name. */
interface Scope {
  singles: Map<string, FieldType>;
  multis: string[];
  counter: number;
}

function freshVariable(scope: Scope): string {
  scope.counter++;
  return `?v${scope.counter}`;
}

function boundOfType(scope: Scope, type: FieldType): string[] {
  return [...scope.singles].filter(([, bound]) => bound === type).map(([name]) => name);
}

/**
 * One field constraint. Inside a negated CE (`local`), new variables would not escape, so only
 * joins, literals, wildcards and connectives of literals are used there.
 */
function fieldConstraint(rng: Rng, scope: Scope, type: FieldType, local: boolean): string {
  const joins = boundOfType(scope, type);
  const roll = rng.next();
  if (roll < 0.35 && joins.length > 0) return rng.pick(joins);
  if (roll < 0.45) return literal(rng, type);
  if (roll < 0.55) return "?";
  if (roll < 0.6) {
    const first = literal(rng, type);
    let second = literal(rng, type);
    if (second === first) second = type === "int" ? String(Number(first) + 1) : "d";
    return `${first}|${second}`;
  }
  if (local) return rng.chance(0.5) ? `~${literal(rng, type)}` : "?";
  const variable = freshVariable(scope);
  scope.singles.set(variable, type);
  if (roll < 0.8) return variable;
  if (roll < 0.88) return `${variable}&~${literal(rng, type)}`;
  if (type === "int") {
    const other = joins.length > 0 && rng.chance(0.5) ? rng.pick(joins) : String(rng.int(1, 3));
    return `${variable}&:(${rng.pick([">", ">=", "<", "<=", "<>"])} ${variable} ${other})`;
  }
  return `${variable}&:(neq ${variable} ${literal(rng, type)})`;
}

function orderedPattern(rng: Rng, scope: Scope, relation: Relation, local: boolean): string {
  const fields = relation.fields.map((type) => fieldConstraint(rng, scope, type, local));
  return `(${[relation.name, ...fields].join(" ")})`;
}

function templatePattern(rng: Rng, scope: Scope, template: Template, local: boolean): string {
  const parts = [template.name];
  const slots = template.slots.filter(() => rng.chance(0.7));
  if (rng.chance(0.5)) slots.reverse();
  for (const slot of slots) {
    parts.push(`(${slot.name} ${fieldConstraint(rng, scope, slot.type, local)})`);
  }
  if (rng.chance(0.35)) {
    const roll = rng.next();
    if (roll < 0.4 && !local) {
      const variable = `$?m${++scope.counter}`;
      scope.multis.push(variable);
      parts.push(`(${template.multislot} ${variable})`);
    } else if (roll < 0.8) {
      parts.push(`(${template.multislot} $? ${rng.pick(SYMBOLS)} $?)`);
    } else {
      parts.push(`(${template.multislot})`);
    }
  }
  return `(${parts.join(" ")})`;
}

/** A pattern on a random relation or template; reports which template it matched, if any. */
function randomPattern(
  rng: Rng,
  scope: Scope,
  schema: Schema,
  local: boolean,
): { text: string; template: Template | undefined } {
  if (rng.chance(0.5)) {
    const template = rng.pick(schema.templates);
    return { text: templatePattern(rng, scope, template, local), template };
  }
  return {
    text: orderedPattern(rng, scope, rng.pick(schema.relations), local),
    template: undefined,
  };
}

/** `(or (rel … lit1 …) (rel … lit2 …))`: both branches bind the same variables. */
function orPattern(rng: Rng, scope: Scope, relation: Relation): string {
  const split = rng.int(0, relation.fields.length - 1);
  const fields = relation.fields.map((type, index) =>
    index === split ? "" : fieldConstraint(rng, scope, type, false),
  );
  const type = relation.fields[split] ?? "sym";
  const first = literal(rng, type);
  let second = literal(rng, type);
  if (second === first) second = type === "int" ? String(Number(first) + 1) : "d";
  const branch = (value: string) =>
    `(${[relation.name, ...fields.map((field, index) => (index === split ? value : field))].join(" ")})`;
  return `(or ${branch(first)} ${branch(second)})`;
}

function valueFor(rng: Rng, scope: Scope, type: FieldType): string {
  const bound = boundOfType(scope, type);
  return bound.length > 0 && rng.chance(0.6) ? rng.pick(bound) : literal(rng, type);
}

function makeRule(rng: Rng, schema: Schema, index: number): string {
  const scope: Scope = { singles: new Map(), multis: [], counter: 0 };
  const lhs: string[] = [];
  let address: { name: string; template: Template | undefined } | undefined;
  const positives = rng.int(1, 3);
  for (let count = 0; count < positives; count++) {
    if (count > 0 && rng.chance(0.08)) {
      lhs.push(orPattern(rng, scope, rng.pick(schema.relations)));
      continue;
    }
    const pattern = randomPattern(rng, scope, schema, false);
    if (address === undefined && rng.chance(0.45)) {
      address = { name: "?f", template: pattern.template };
      lhs.push(`?f <- ${pattern.text}`);
    } else {
      lhs.push(pattern.text);
    }
  }
  if (rng.chance(0.3)) lhs.push(`(not ${randomPattern(rng, scope, schema, true).text})`);
  if (rng.chance(0.12)) lhs.push(`(exists ${randomPattern(rng, scope, schema, true).text})`);
  const ints = boundOfType(scope, "int");
  if (ints.length >= 2 && rng.chance(0.3)) {
    lhs.push(`(test (${rng.pick([">", "<>", "<="])} ${ints[0]} ${ints[1]}))`);
  }

  const name = `rule-${index}`;
  const shown = [...scope.singles.keys(), ...scope.multis].flatMap((variable) => [
    ` " ${variable.replace("$", "")}=" `,
    variable,
  ]);
  const rhs = [`(printout t "${name}"${shown.join("")} crlf)`];
  if (ints.length > 0 && rng.chance(0.2)) {
    const variable = rng.pick(ints);
    rhs.push(
      `(if (> ${variable} 2) then (printout t "  big" crlf) else (printout t "  small" crlf))`,
    );
  }
  if (ints.length > 0 && rng.chance(0.2)) {
    rhs.push(`(bind ?sum (+ ${ints.join(" ")} 1))`, `(printout t "  sum " ?sum crlf)`);
  }
  if (rng.chance(0.35)) {
    const relation = rng.pick(schema.relations);
    const values = relation.fields.map((type) => valueFor(rng, scope, type));
    rhs.push(`(assert (${[relation.name, ...values].join(" ")}))`);
  }
  if (address !== undefined) {
    const template = address.template;
    const roll = rng.next();
    if (template !== undefined && roll < 0.4) {
      const slot = rng.pick(template.slots);
      rhs.push(`(modify ?f (${slot.name} ${valueFor(rng, scope, slot.type)}))`);
    } else if (template !== undefined && roll < 0.55) {
      const slot = rng.pick(template.slots);
      rhs.push(`(duplicate ?f (${slot.name} ${valueFor(rng, scope, slot.type)}))`);
    } else if (roll < 0.8) {
      rhs.push("(retract ?f)");
    }
  }
  const salience = rng.pick([0, 0, 0, 5, -5, 10]);
  const declare = salience === 0 ? "" : ` (declare (salience ${salience}))`;
  return `(defrule ${name}${declare} ${lhs.join(" ")} => ${rhs.join(" ")})`;
}

function deftemplate(template: Template, rng: Rng): string {
  const slots = template.slots.map((slot) => {
    const type = slot.type === "int" ? "INTEGER" : "SYMBOL";
    const fallback = rng.chance(0.4) ? ` (default ${slot.type === "int" ? "1" : "a"})` : "";
    return `(slot ${slot.name} (type ${type})${fallback})`;
  });
  return `(deftemplate ${template.name} ${slots.join(" ")} (multislot ${template.multislot}))`;
}

/** A top-level fact, every slot given in template order so its text identifies it exactly. */
function randomFact(rng: Rng, schema: Schema): string {
  if (rng.chance(0.5)) {
    const template = rng.pick(schema.templates);
    const slots = template.slots.map((slot) => `(${slot.name} ${literal(rng, slot.type)})`);
    const tags = Array.from({ length: rng.int(0, 2) }, () => rng.pick(SYMBOLS));
    return `(${template.name} ${slots.join(" ")} (${[template.multislot, ...tags].join(" ")}))`;
  }
  const relation = rng.pick(schema.relations);
  return `(${[relation.name, ...relation.fields.map((type) => literal(rng, type))].join(" ")})`;
}

/** One whole program; deterministic in `seed`. */
export function generateProgram(seed: number): string {
  const rng = new Rng(seed);
  const schema = makeSchema(rng);
  const lines = [`; generated by generate.ts from seed ${seed}`];
  for (const template of schema.templates) lines.push(deftemplate(template, rng));
  const rules = rng.int(3, 7);
  for (let index = 1; index <= rules; index++) lines.push(makeRule(rng, schema, index));
  lines.push("(reset)");

  // Before the first run only the script changes working memory, so fact indices are known:
  // retracts by index always name a live fact (duplicates take no index).
  const live = new Map<string, number>();
  let nextIndex = 1;
  const firstBatch = rng.int(6, 14);
  for (let count = 0; count < firstBatch; count++) {
    const fact = randomFact(rng, schema);
    lines.push(`(assert ${fact})`);
    if (!live.has(fact)) live.set(fact, nextIndex++);
    if (rng.chance(0.15) && live.size > 1) {
      const [victim, index] = rng.pick([...live]);
      live.delete(victim);
      lines.push(`(retract ${index})`);
    }
  }
  if (rng.chance(0.5)) lines.push("(agenda)");
  lines.push(`(run ${rng.pick([3, 5, 10, 25])})`);
  if (rng.chance(0.5)) lines.push("(facts)");
  const secondBatch = rng.int(1, 5);
  for (let count = 0; count < secondBatch; count++)
    lines.push(`(assert ${randomFact(rng, schema)})`);
  if (rng.chance(0.4)) lines.push("(agenda)");
  lines.push(`(run ${rng.pick([10, 25, 50])})`, "(facts)", "(exit)");
  return `${lines.join("\n")}\n`;
}

/** Pattern shapes over one ordered relation `(s …)`: each binds ?x or ?m, or nothing. */
const ORDER_SHAPES = [
  "(s ?x)",
  "(s ?x ?)",
  "(s $?m)",
  "(s ?x $?)",
  "(s $? ?x)",
  "(s ? $?m)",
  "(s ?x $?m)",
  "(s a $?)",
  "(s ?x&~b $?)",
  "(s $? b $?)",
] as const;

/**
 * The agenda-order flavour: many rules whose patterns all match the same facts in different
 * shapes (single and segment variables, template and ordered, joins, `not`), with `(agenda)`
 * after every assert, to pin the order CLIPS gives activations created by one assertion.
 */
export function generateAgendaOrderProgram(seed: number): string {
  const rng = new Rng(seed);
  const lines = [
    `; generated by generate.ts (agenda order) from seed ${seed}`,
    "(deftemplate t (slot k) (multislot m))",
  ];
  const rules = rng.int(4, 9);
  for (let index = 1; index <= rules; index++) {
    const roll = rng.next();
    let lhs: string;
    if (roll < 0.5) lhs = rng.pick(ORDER_SHAPES);
    else if (roll < 0.65) lhs = rng.pick(["(t (k ?x))", "(t (m $?m))", "(t (k ?x) (m $? ?y $?))"]);
    else if (roll < 0.85) lhs = `${rng.pick(ORDER_SHAPES)} (t (k ${rng.pick(["?x", "?", "a"])}))`;
    else lhs = `${rng.pick(ORDER_SHAPES)} (not (t (k ${rng.pick(["?x", "b"])})))`;
    const salience = rng.pick([0, 0, 0, 0, 5]);
    const declare = salience === 0 ? "" : ` (declare (salience ${salience}))`;
    lines.push(`(defrule o-${index}${declare} ${lhs} => (printout t "o-${index}" crlf))`);
  }
  lines.push("(reset)");
  const asserts = rng.int(3, 6);
  for (let count = 0; count < asserts; count++) {
    if (rng.chance(0.6)) {
      const fields = Array.from({ length: rng.int(1, 3) }, () => rng.pick(SYMBOLS));
      lines.push(`(assert (s ${fields.join(" ")}))`);
    } else {
      const tags = Array.from({ length: rng.int(0, 2) }, () => rng.pick(SYMBOLS));
      lines.push(`(assert (t (k ${rng.pick(SYMBOLS)}) (m ${tags.join(" ")})))`);
    }
    lines.push("(agenda)");
  }
  lines.push("(run)", "(exit)");
  return `${lines.join("\n")}\n`;
}

/** The committed corpus: file name to program text. */
export function generatedCorpus(): Map<string, string> {
  const corpus = new Map<string, string>();
  for (let index = 1; index <= GENERATED_COUNT; index++) {
    const name = `gen-${String(index).padStart(2, "0")}.clp`;
    corpus.set(name, generateProgram(GENERATOR_SEED + index * 7919));
  }
  for (let index = 1; index <= AGENDA_ORDER_COUNT; index++) {
    const name = `order-${String(index).padStart(2, "0")}.clp`;
    corpus.set(name, generateAgendaOrderProgram(GENERATOR_SEED + index * 104729));
  }
  return corpus;
}

function writeCorpus(): void {
  const dir = join(DIFFERENTIAL_DIR, "generated");
  mkdirSync(dir, { recursive: true });
  for (const file of readdirSync(dir)) if (file.endsWith(".clp")) rmSync(join(dir, file));
  for (const [name, text] of generatedCorpus()) writeFileSync(join(dir, name), text);
  console.log(`wrote ${GENERATED_COUNT + AGENDA_ORDER_COUNT} programs to ${dir}`);
}

if (process.argv[1] && new URL(import.meta.url).pathname === process.argv[1]) writeCorpus();
