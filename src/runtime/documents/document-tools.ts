import { KeelError } from "../../core/index.js";
import { type IRDocument, moduleTarget, type Problem } from "../../ir/index.js";
import { type ToolHandler, ToolRegistry } from "../tools/tool-registry.js";
import { toolRisk } from "./ir-governance.js";

/** One tool a module provides: its seed-000 ToolSpec, its code, and optionally a dry run. */
export interface ToolExport {
  spec: unknown;
  handler: ToolHandler;
  dryRun?: ToolHandler;
}

/**
 * The modules whose `tools` export an IR document's runs may call: its `module:Export` node
 * modules (resolved beside the document) that no kinds module provides (`provided`: the kinds
 * modules' `nodeKinds`), and its kinds modules (as recorded).
 */
export function toolModules(
  doc: IRDocument,
  baseDir: string,
  kinds: readonly string[],
  provided: Readonly<Record<string, unknown>> = {},
): string[] {
  const modules = new Set<string>();
  for (const node of doc.nodes) {
    // A kind a kinds module provides (a port of a Python class reference, say) names no module.
    if (Object.hasOwn(provided, node.kind)) continue;
    const colon = node.kind.lastIndexOf(":");
    if (colon > 0) modules.add(moduleTarget(node.kind.slice(0, colon), baseDir));
  }
  for (const module of kinds) modules.add(module);
  return [...modules];
}

/**
 * Registers the tools the modules export (`export const tools = [{ spec, handler, dryRun? }]`).
 * A module without a `tools` export gives none; a malformed one is `TOOL_SPEC_INVALID`.
 */
export async function loadDocumentTools(modules: readonly string[]): Promise<ToolRegistry> {
  const registry = new ToolRegistry();
  for (const module of modules) {
    const exported = ((await import(module)) as { tools?: unknown }).tools;
    if (exported === undefined) continue;
    if (!Array.isArray(exported)) {
      throw new KeelError("TOOL_SPEC_INVALID", `${module}: \`tools\` is not an array.`, {
        details: { module },
        hint: "Export `tools = [{ spec, handler, dryRun? }]`.",
      });
    }
    for (const entry of exported as ToolExport[]) {
      if (typeof entry?.handler !== "function") {
        throw new KeelError("TOOL_SPEC_INVALID", `${module}: a tool has no handler function.`, {
          details: { module },
          hint: "Export `tools = [{ spec, handler, dryRun? }]`.",
        });
      }
      registry.register(entry.spec, entry.handler, entry.dryRun ? { dryRun: entry.dryRun } : {});
    }
  }
  return registry;
}

/**
 * Warnings about the document's tools (`keel ir lint`): a tool no module provides
 * (`tool_unregistered`: its calls would fail), a pinned version the registered tool is not
 * (`tool_version_mismatch`), and a tool with effects without a declared risk (`tool_without_risk`:
 * its calls are gated at the run's risk, `low` unless routing raised it).
 */
export function lintTools(doc: IRDocument, tools: ToolRegistry): Problem[] {
  const warnings: Problem[] = [];
  doc.tools.forEach((ref, index) => {
    const path = `/tools/${index}`;
    if (!tools.has(ref.id)) {
      warnings.push({
        code: "tool_unregistered",
        path,
        message: `No module provides the tool "${ref.id}": a node calling it fails with TOOL_NOT_FOUND.`,
        expected: "a `tools` export of a node or kinds module registering it",
        actual: JSON.stringify(ref.id),
        hint: "Export `tools = [{ spec, handler }]` from the module the document's nodes come from.",
      });
      return;
    }
    const spec = tools.get(ref.id).spec;
    if (ref.version !== null && ref.version !== spec.version) {
      warnings.push({
        code: "tool_version_mismatch",
        path: `${path}/version`,
        message: `The document pins "${ref.id}" at ${ref.version}; the registered tool is ${spec.version}.`,
        expected: JSON.stringify(ref.version),
        actual: JSON.stringify(spec.version),
        hint: "Pin the version the module provides, or update the module.",
      });
    }
    if ((spec.side_effects === "write" || spec.side_effects === "external") && !toolRisk(spec)) {
      warnings.push({
        code: "tool_without_risk",
        path,
        message: `"${ref.id}" acts on the world (${spec.side_effects}) but declares no risk level, so its calls are gated at the run's risk.`,
        expected: 'a tag "risk:low|medium|high|critical" on the tool spec',
        actual: JSON.stringify(spec.tags),
        hint: 'Add "risk:high" (or the level it has) to the spec\'s tags.',
      });
    }
  });
  return warnings;
}
