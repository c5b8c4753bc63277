import type { Command } from "commander";
import semver from "semver";
import { KeelError } from "../../core/index.js";
import { SPEC_VERSION, setPluginEnabled } from "../../store/index.js";
import { withStore } from "../catalog/context.js";
import type { CliModule } from "../command.js";
import { declareExitCodes } from "../exit-codes.js";
import { printResult, reportError, table } from "../output.js";
import {
  discoveredJson,
  type InspectedPlugin,
  inspectPlugins,
  type PluginsInspection,
} from "../plugins/inspect.js";
import { outputOptions, type StoreCliOptions, withStoreOptions } from "../scope.js";

const BROKEN = new Set(["invalid-manifest", "incompatible-spec", "load-error"]);

function listTable(inspection: PluginsInspection): string {
  if (inspection.plugins.length === 0) {
    return `no plugins in ${inspection.folders.join(" or ")}`;
  }
  return table(
    ["id", "version", "status", "reason"],
    inspection.plugins.map(({ plugin }) => [
      plugin.id,
      plugin.manifest?.version ?? "",
      plugin.status,
      plugin.statusReason ?? "",
    ]),
  );
}

function find(inspection: PluginsInspection, id: string): InspectedPlugin {
  const found = inspection.plugins.find((p) => p.plugin.id === id);
  if (found) return found;
  const known = inspection.plugins.map((p) => p.plugin.id);
  throw new KeelError(
    "PLUGIN_NOT_FOUND",
    `No plugin "${id}" in ${inspection.folders.join(" or ")}.`,
    {
      hint:
        known.length > 0
          ? `The scope's plugins: ${known.join(", ")}.`
          : "Put the plugin's folder (with its plugin.json) in .keel/plugins/.",
      details: { id, known },
    },
  );
}

function showJson({ plugin, settings, extensions }: InspectedPlugin): Record<string, unknown> {
  const range = plugin.manifest?.specCompat ?? null;
  return {
    ...discoveredJson(plugin),
    compat: {
      specCompat: range,
      specVersion: SPEC_VERSION,
      satisfied: range === null ? null : semver.satisfies(SPEC_VERSION, range),
    },
    enabledFrom: settings.enabledFrom,
    config: settings.config,
    configFrom: settings.configFrom,
    extensions,
  };
}

function showText(shown: Record<string, unknown>, inspected: InspectedPlugin): string {
  const { plugin, settings, extensions } = inspected;
  const compat = shown.compat as { specCompat: string | null; satisfied: boolean | null };
  return [
    `${plugin.id} ${plugin.manifest?.version ?? ""}`.trim(),
    `  path        ${plugin.path}`,
    `  status      ${plugin.status}${plugin.statusReason ? ` (${plugin.statusReason})` : ""}`,
    `  switched    ${settings.enabled ? "on" : "off"} (${settings.enabledFrom})`,
    `  spec        ${compat.specCompat ?? "(no specCompat)"} against ${SPEC_VERSION}: ${compat.satisfied === null ? "not checked" : compat.satisfied ? "compatible" : "incompatible"}`,
    `  config      ${JSON.stringify(settings.config)} (${settings.configFrom})`,
    ...(plugin.manifest?.description ? [`  about       ${plugin.manifest.description}`] : []),
    `  extensions  ${extensions.length === 0 ? "(none registered)" : extensions.map((e) => `${e.kind}:${e.id}@${e.version}`).join(", ")}`,
    "",
    "manifest:",
    JSON.stringify(plugin.manifest, null, 2),
  ].join("\n");
}

/** `keel plugins list|show|enable|disable|doctor` (the spec's CLI contract, "Plugins"). */
export const pluginsCommands: CliModule = {
  register(program: Command): void {
    const plugins = withStoreOptions(
      program
        .command("plugins")
        .description(
          "The scope's plugins (.keel/plugins, .skill-map/plugins): list, show, enable, disable, doctor.",
        ),
    );
    // `--json`, `--db`, … written after the subcommand land on `plugins`, which declares them too.
    const flagsOf = (raw: StoreCliOptions) =>
      outputOptions({ ...(plugins.opts() as StoreCliOptions), ...raw });

    const list = withStoreOptions(
      plugins
        .command("list")
        .description("Every plugin found, with its status (--json: DiscoveredPlugin[])."),
    ).action(async (raw: StoreCliOptions) => {
      const flags = flagsOf(raw);
      try {
        const inspection = await withStore(flags, (store) => inspectPlugins(flags, store));
        printResult(
          flags,
          inspection.plugins.map((p) => discoveredJson(p.plugin)),
          () => listTable(inspection),
        );
      } catch (error) {
        reportError(flags, error);
      }
    });
    declareExitCodes(list, [0, 2]);

    const show = withStoreOptions(
      plugins
        .command("show")
        .description("One plugin: its manifest, spec compatibility, switch, config, extensions.")
        .argument("<id>", "the plugin's id"),
    ).action(async (id: string, raw: StoreCliOptions) => {
      const flags = flagsOf(raw);
      try {
        const inspection = await withStore(flags, (store) => inspectPlugins(flags, store));
        const inspected = find(inspection, id);
        const shown = showJson(inspected);
        printResult(flags, shown, () => showText(shown, inspected));
      } catch (error) {
        reportError(flags, error);
      }
    });
    declareExitCodes(show, [0, 2, 5]);

    for (const enabled of [true, false]) {
      const verb = enabled ? "enable" : "disable";
      const command = withStoreOptions(
        plugins
          .command(verb)
          .description(
            enabled
              ? "Switch a plugin on (config_plugins; wins over the config file's plugins.<id>.enabled)."
              : "Switch a plugin off (config_plugins); its folder and data are kept.",
          )
          .argument("<id>", "the plugin's id"),
      ).action(async (id: string, raw: StoreCliOptions) => {
        const flags = flagsOf(raw);
        try {
          const after = await withStore(flags, async (store) => {
            find(await inspectPlugins(flags, store), id);
            await setPluginEnabled(store, id, enabled);
            return find(await inspectPlugins(flags, store), id).plugin;
          });
          printResult(
            flags,
            { ok: true, id, enabled, status: after.status, statusReason: after.statusReason },
            () =>
              `plugin ${id} ${enabled ? "enabled" : "disabled"}` +
              (enabled && after.status !== "enabled"
                ? `, but it is ${after.status}: ${after.statusReason ?? ""}`
                : ""),
          );
        } catch (error) {
          reportError(flags, error);
        }
      });
      declareExitCodes(command, [0, 2, 5]);
    }

    const doctor = withStoreOptions(
      plugins
        .command("doctor")
        .description(
          "Revalidate every plugin against this spec version: manifest, specCompat, migrations, modules, config (exit 1 when one is broken).",
        ),
    ).action(async (raw: StoreCliOptions) => {
      const flags = flagsOf(raw);
      try {
        const inspection = await withStore(flags, (store) => inspectPlugins(flags, store));
        const broken = inspection.plugins.filter((p) => BROKEN.has(p.plugin.status));
        printResult(
          flags,
          { schemaVersion: 1, plugins: inspection.plugins.map((p) => discoveredJson(p.plugin)) },
          () =>
            [
              listTable(inspection),
              broken.length === 0
                ? `${inspection.plugins.length} plugin(s), none broken`
                : `${broken.length} of ${inspection.plugins.length} plugin(s) cannot be used: ${broken.map((p) => p.plugin.id).join(", ")}`,
            ].join("\n"),
        );
        if (broken.length > 0) process.exitCode = 1;
      } catch (error) {
        reportError(flags, error);
      }
    });
    declareExitCodes(doctor, [0, 1, 2]);
  },
};
