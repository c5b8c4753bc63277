import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { compareCodePoints, KeelError } from "../../core/index.js";
import { problemsFromZodIssues } from "../../runtime/index.js";
import type { DiscoveredPlugin } from "../../store/index.js";
import { type Action, makeAction } from "./action.js";
import { BUILTIN_ACTIONS } from "./builtins.js";
import { ActionManifestSchema, unknownPlaceholders } from "./manifest.js";

/** An action file a plugin lists that could not be loaded, with why. */
export interface ActionLoadFailure {
  readonly source: string;
  readonly file: string;
  readonly message: string;
}

/** The actions Keel knows: the built-ins, then those of enabled plugins. */
export interface ActionRegistry {
  readonly actions: readonly Action[];
  readonly failures: readonly ActionLoadFailure[];
  /** One action by id; ACTION_NOT_FOUND (exit 5) when none has it. */
  get(id: string): Action;
}

/**
 * Validates an action manifest (plus the template rule of prompt-preamble.md: no interpolation
 * but `{{node}}`, `{{kind}}` and `{{action.id}}`). Throws ACTION_MANIFEST_INVALID with every
 * problem as a JSON Pointer.
 *
 * @example
 * const action = parseActionManifest(JSON.parse(text), "my-plugin", dir);
 */
export function parseActionManifest(raw: unknown, source: string, dir: string | null): Action {
  const withoutKind =
    raw && typeof raw === "object" && "kind" in raw
      ? Object.fromEntries(Object.entries(raw).filter(([key]) => key !== "kind"))
      : raw;
  const parsed = ActionManifestSchema.safeParse(withoutKind);
  const problems = parsed.success ? [] : problemsFromZodIssues(parsed.error.issues, withoutKind);
  if (parsed.success) {
    const bad = unknownPlaceholders(parsed.data.promptTemplate);
    if (bad.length > 0) {
      problems.push({
        code: "value_error",
        path: "/promptTemplate",
        message: `The template interpolates ${bad.map((b) => `{{${b}}}`).join(", ")}, which the kernel does not fill: user text may only reach a prompt inside <user-content> ({{node}}).`,
        expected: "only {{node}}, {{kind}} and {{action.id}}",
        actual: bad.join(", "),
        hint: "Put node content in the template with {{node}}; write everything else as plain template text.",
      });
    }
    if (parsed.data.runner === "in-process" && !parsed.data.implementation) {
      problems.push({
        code: "missing",
        path: "/implementation",
        message:
          "An in-process action needs an implementation (an IR document or a keelApp module).",
        expected: '{"kind":"ir","document":"<path>"} or {"kind":"module","module":"<path>"}',
        actual: "nothing",
        hint: "Point implementation at the IR document (document) or the module exporting keelApp (module) the action runs.",
      });
    }
  }
  if (!parsed.success || problems.length > 0) {
    throw new KeelError(
      "ACTION_MANIFEST_INVALID",
      `Action manifest from ${source} is invalid: ${problems.map((p) => `${p.path} ${p.message}`).join("; ")}`,
      {
        details: { source, problems },
        hint: "Fix the manifest; `keel actions list` shows what loaded.",
      },
    );
  }
  try {
    return makeAction(parsed.data, source, dir);
  } catch (error) {
    throw new KeelError(
      "ACTION_MANIFEST_INVALID",
      `Action ${parsed.data.id} from ${source} has a report schema ajv cannot compile: ${(error as Error).message}`,
      { cause: error, hint: "reportSchema must be a JSON Schema (draft 2020-12)." },
    );
  }
}

/**
 * Loads the built-in actions and those of the enabled plugins (the store's one discovery,
 * `discoverStorePlugins`): each plugin's `extensions` files (relative to the plugin folder) whose
 * JSON has `"kind": "action"`. A bad file is reported in `failures`, never fatal; a plugin action
 * may not take a built-in's id.
 *
 * @example
 * const actions = loadActions(await discoverStorePlugins(store));
 */
export function loadActions(plugins: readonly DiscoveredPlugin[] = []): ActionRegistry {
  const actions: Action[] = BUILTIN_ACTIONS.map((m) => makeAction(m, "builtin", null));
  const failures: ActionLoadFailure[] = [];
  for (const plugin of plugins) {
    if (plugin.status !== "enabled" || !plugin.manifest) continue;
    for (const entry of plugin.manifest.extensions ?? []) {
      const file = resolve(plugin.path, entry);
      try {
        if (!existsSync(file) || !file.endsWith(".json")) continue;
        const raw = JSON.parse(readFileSync(file, "utf8")) as { kind?: unknown };
        if (raw?.kind !== "action") continue;
        const action = parseActionManifest(raw, plugin.id, dirname(file));
        if (actions.some((a) => a.manifest.id === action.manifest.id)) {
          throw new Error(
            `action id ${action.manifest.id} is already taken (by ${actions.find((a) => a.manifest.id === action.manifest.id)?.source})`,
          );
        }
        actions.push(action);
      } catch (error) {
        failures.push({ source: plugin.id, file, message: (error as Error).message });
      }
    }
  }
  actions.sort((a, b) => compareCodePoints(a.manifest.id, b.manifest.id));
  return {
    actions,
    failures,
    get(id) {
      const action = actions.find((a) => a.manifest.id === id);
      if (!action) {
        throw new KeelError("ACTION_NOT_FOUND", `No action "${id}".`, {
          details: { id, known: actions.map((a) => a.manifest.id) },
          hint: "List the actions with `keel actions list`; plugin actions come from enabled plugins' extension files.",
        });
      }
      return action;
    },
  };
}
