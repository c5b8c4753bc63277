import type { Command } from "commander";
import {
  getPreference,
  listPreferences,
  parsePreferenceValue,
  setPreference,
  settingOrigin,
  unsetPreference,
} from "../../store/index.js";
import { pc } from "../colors.js";
import type { CliModule } from "../command.js";
import { printResult, reportError, table } from "../output.js";
import {
  locationFor,
  openCliStore,
  openReadCliStore,
  outputOptions,
  type StoreCliOptions,
  withStoreOptions,
} from "../scope.js";

/** `keel config get|set|show|list|reset`: preferences in `config_preferences`, per scope. */
export const configCommands: CliModule = {
  register(program: Command): void {
    const config = program
      .command("config")
      .description("Preferences stored in the scope's database.");

    withStoreOptions(
      config.command("get <key>").description("Print one preference (exit 5 when unknown)."),
    ).action(async (key: string, flags: StoreCliOptions) => {
      const options = outputOptions(flags);
      await withStore(
        options,
        async (store) => {
          const entry = await getPreference(store, key);
          printResult(options, { ok: true, ...entry }, () => JSON.stringify(entry.value));
        },
        { readOnly: true },
      );
    });

    withStoreOptions(
      config
        .command("set <key> <value>")
        .description("Set a preference; the value is read as JSON when it parses, else as text."),
    ).action(async (key: string, value: string, flags: StoreCliOptions) => {
      const options = outputOptions(flags);
      await withStore(options, async (store) => {
        const entry = await setPreference(store, key, parsePreferenceValue(value));
        printResult(
          options,
          { ok: true, ...entry },
          () => `${pc.green("set")} ${key} = ${JSON.stringify(entry.value)}`,
        );
      });
    });

    withStoreOptions(
      config
        .command("show <key>")
        .description(
          "Print a setting's effective value; --source adds where it comes from (default, project, global, env, flag).",
        )
        .option("--source", "also say where the value comes from"),
    ).action(async (key: string, flags: StoreCliOptions & { source?: boolean }) => {
      const options = outputOptions(flags);
      await withStore(
        options,
        async (store) => {
          const shown = await settingOrigin(store, key, {
            scope: flags.global || process.env.KEEL_SCOPE === "global" ? "global" : "project",
            keelDir: locationFor(options).keelDir,
            ...(flags.db !== undefined ? { db: flags.db } : {}),
          });
          printResult(options, { ok: true, ...shown }, () =>
            flags.source
              ? `${JSON.stringify(shown.value)}  ${pc.dim(`(${shown.source}: ${shown.from})`)}`
              : JSON.stringify(shown.value),
          );
        },
        { readOnly: true },
      );
    });

    withStoreOptions(
      config.command("list").description("Every preference, stored or default."),
    ).action(async (flags: StoreCliOptions) => {
      const options = outputOptions(flags);
      await withStore(
        options,
        async (store) => {
          const entries = await listPreferences(store);
          printResult(options, { ok: true, preferences: entries }, () =>
            table(
              ["key", "value", "source"],
              entries.map((e) => [e.key, JSON.stringify(e.value), e.source]),
            ),
          );
        },
        { readOnly: true },
      );
    });

    withStoreOptions(
      config
        .command("reset <key>")
        .description("Remove a stored preference (back to its default)."),
    ).action(async (key: string, flags: StoreCliOptions) => {
      const options = outputOptions(flags);
      await withStore(options, async (store) => {
        const removed = await unsetPreference(store, key);
        printResult(options, { ok: true, key, removed }, () =>
          removed ? `${pc.green("reset")} ${key}` : `${key} was not set`,
        );
      });
    });
  },
};

async function withStore(
  options: StoreCliOptions,
  fn: (store: Awaited<ReturnType<typeof openCliStore>>) => Promise<void>,
  mode: { readOnly?: boolean } = {},
): Promise<void> {
  try {
    // A verb that only reads opens read-only: it leaves nothing behind (see openReadCliStore).
    const store = mode.readOnly ? await openReadCliStore(options) : await openCliStore(options);
    try {
      await fn(store);
    } finally {
      await store.close();
    }
  } catch (error) {
    reportError(options, error);
  }
}
