import { LINK_KINDS } from "../model.js";

const KEBAB = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;

/**
 * What is wrong with one exported value as an extension (null: nothing): the shapes of
 * `extensions.ts`, checked before a plugin's extension is registered.
 *
 * @example
 * extensionShapeProblem({ kind: "widget", id: "w", version: "1", description: "" });
 * // 'declares kind "widget"; an extension is an adapter, detector, rule or renderer'
 */
export function extensionShapeProblem(value: unknown): string | null {
  if (value === null || typeof value !== "object") return "is not an object";
  const e = value as Record<string, unknown>;
  if (typeof e.id !== "string" || !KEBAB.test(e.id)) return "has no kebab-case id";
  const name = `${String(e.kind)} "${e.id}"`;
  if (typeof e.version !== "string" || typeof e.description !== "string")
    return `${name} needs a version and a description (strings)`;
  if (
    e.configSchema !== undefined &&
    (e.configSchema === null || typeof e.configSchema !== "object")
  )
    return `${name} has a configSchema that is not a JSON Schema object`;
  const fn = (key: string) => typeof e[key] === "function";
  switch (e.kind) {
    case "adapter":
      return fn("classify") ? null : `${name} has no classify(path) function`;
    case "detector": {
      if (!fn("detect")) return `${name} has no detect(context) function`;
      if (!["body", "frontmatter", "both"].includes(e.scope as string))
        return `${name} needs scope body, frontmatter or both`;
      if (!["low", "medium", "high"].includes(e.defaultConfidence as string))
        return `${name} needs defaultConfidence low, medium or high`;
      const kinds = e.emitsLinkKinds;
      if (
        !Array.isArray(kinds) ||
        !kinds.every((k) => (LINK_KINDS as readonly unknown[]).includes(k))
      )
        return `${name} needs emitsLinkKinds, a list of ${LINK_KINDS.join(", ")}`;
      const foreign = e.foreignSourceKeys;
      if (
        foreign !== undefined &&
        !(Array.isArray(foreign) && foreign.every((k) => typeof k === "string" && k !== ""))
      )
        return `${name} has foreignSourceKeys that is not a list of frontmatter keys`;
      return null;
    }
    case "rule":
      return fn("evaluate") ? null : `${name} has no evaluate(context) function`;
    case "renderer":
      return fn("render") && typeof e.format === "string"
        ? null
        : `${name} needs a format and a render(graph) function`;
    default:
      return `declares kind "${String(e.kind)}"; an extension is an adapter, detector, rule or renderer`;
  }
}
