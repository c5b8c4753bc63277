import { parse as parseYaml } from "yaml";
import { compileAuthoring, isAuthoringFormat } from "./authoring.js";
import { IrValidationError } from "./errors.js";

/**
 * The JSON text of an IR document given as a file's text: JSON as it is; YAML (a `.yaml` or
 * `.yml` file) parsed and written as JSON; an authoring-format YAML document (no `ir_version`,
 * see authoring.ts) compiled to IR first. Throws `IrValidationError` (`IR_INVALID`) for YAML that
 * does not parse, with a `yaml_invalid` problem saying where.
 *
 * @example
 * documentText("id: hi\nnodes: { a: { kind: echo } }\n", "hi.yaml") // '{"ir_version":"1.0.0",…}'
 */
export function documentText(text: string, fileName: string): string {
  if (!/\.ya?ml$/i.test(fileName)) return text;
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    const where = (error as { linePos?: { line: number; col: number }[] }).linePos?.[0];
    throw new IrValidationError("YAML document", [
      {
        code: "yaml_invalid",
        path: "",
        message: `The YAML does not parse${where ? ` (line ${where.line}, column ${where.col})` : ""}: ${(error as Error).message.split("\n")[0]}`,
        expected: "a YAML mapping",
        actual: fileName,
        hint: "Fix the YAML at the reported position.",
      },
    ]);
  }
  return JSON.stringify(isAuthoringFormat(value) ? compileAuthoring(value) : value);
}
