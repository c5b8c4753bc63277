import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Template } from "../../../src/rules/ast.js";
import { buildsSurely } from "../../../src/rules/build-check.js";
import { isKnownFunction } from "../../../src/rules/evaluate.js";
import { RuleEngine } from "../../../src/rules/index.js";
import { parseDefrule } from "../../../src/rules/parse-constructs.js";
import { readForms, type SList } from "../../../src/rules/reader.js";

// buildsSurely lets a host put off building a rule without putting off its errors, so it must
// never say yes to a rule that building refuses. Checked on every defrule of the CLIPS corpora.

const DIRS = ["corpus", "generated", "bad"].map((d) =>
  join(import.meta.dirname, "..", "differential", d),
);

function defrules(): { file: string; source: string; templates: string[] }[] {
  const out: { file: string; source: string; templates: string[] }[] = [];
  for (const dir of DIRS) {
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".clp"))) {
      let forms: ReturnType<typeof readForms>;
      try {
        forms = readForms(readFileSync(join(dir, file), "utf8"));
      } catch {
        continue;
      }
      const templates: string[] = [];
      for (const form of forms) {
        if (form.type !== "list" || form.items[0]?.type !== "atom") continue;
        const head = form.items[0].text;
        if (head === "deftemplate") templates.push(form.source);
        if (head !== "defrule") continue;
        // The left-hand side only: buildsSurely covers rules without actions.
        const arrow = form.items.find((n) => n.type === "atom" && n.text === "=>");
        if (!arrow) continue;
        const lines = form.source.split("\n");
        const line = arrow.pos.line - form.pos.line;
        const column = arrow.pos.column - (line === 0 ? form.pos.column - 1 : 0);
        const before = [...lines.slice(0, line), (lines[line] ?? "").slice(0, column - 1)];
        out.push({ file, source: `${before.join("\n")} =>)`, templates: [...templates] });
      }
    }
  }
  return out;
}

describe("buildsSurely", () => {
  it("never says yes to a rule that building refuses (every defrule of the corpora)", () => {
    let yes = 0;
    let refused = 0;
    for (const rule of defrules()) {
      const engine = new RuleEngine();
      try {
        for (const t of rule.templates) engine.load(t);
      } catch {
        continue;
      }
      const form = readForms(rule.source)[0] as SList;
      let surely: boolean;
      try {
        // Parse against the file's templates, as its engine does.
        const templates = (engine as unknown as { templates: Map<string, Template> }).templates;
        const ast = parseDefrule(form, {
          template: (name) => templates.get(name),
          hasFunction: (name) => isKnownFunction(name),
        });
        surely = buildsSurely(ast);
      } catch {
        continue; // does not parse: nothing to defer
      }
      let built = true;
      try {
        // A rule naming its module needs the module (the file defined it before), seeing
        // MAIN's templates as the file's modules do.
        const module = /^\(defrule\s+([^\s:]+)::/.exec(rule.source)?.[1];
        if (module !== undefined && module !== "MAIN") {
          engine.load(`(defmodule MAIN (export ?ALL)) (defmodule ${module} (import MAIN ?ALL))`);
        }
        engine.load(rule.source);
      } catch {
        built = false;
        refused++;
      }
      if (surely) {
        yes++;
        expect(built, `${rule.file}: ${rule.source}`).toBe(true);
      }
    }
    // The condition covers a good part of real left-hand sides.
    expect(yes).toBeGreaterThan(50);
    expect(refused).toBeGreaterThanOrEqual(0);
  });

  it("says yes to patterns and tests reading bound variables only", () => {
    const yes = [
      "(node-id a) (severity ?s&:(>= ?s 4))",
      "(a ?x) (b ?y&~?x&:(> ?y ?x)) (test (< ?x 10))",
      "(a ?x ?x) (b ~red|blue)",
      "",
    ];
    const no = [
      "(a ?x) (test (> ?y 1))",
      "(a ~?y)",
      "(a :(> ?y 1) ?y)",
      "?f <- (a 1)",
      "(a $?rest)",
      "(not (a 1))",
      "(or (a 1) (b 1))",
      "(a ?x&:(+ ?x))",
      "(test (> ?x 1)) (a ?x)",
    ];
    const ast = (when: string) => {
      const form = readForms(`(defrule r ${when} =>)`)[0] as SList;
      return parseDefrule(form, { template: () => undefined, hasFunction: isKnownFunction });
    };
    for (const when of yes) expect(buildsSurely(ast(when)), when).toBe(true);
    for (const when of no) expect(buildsSurely(ast(when)), when).toBe(false);
    // Those building refuses (only it reports them).
    for (const when of no.slice(0, 3).concat("(a ?x&:(+ ?x))")) {
      expect(() => new RuleEngine().defineRule({ name: "r", when }), when).toThrow(
        /RULES|bound|argument/i,
      );
    }
  });
});
