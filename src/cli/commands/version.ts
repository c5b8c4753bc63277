import type { Command } from "commander";
import { CATALOG_SPEC_VERSION } from "../../catalog/index.js";
import { VERSION } from "../../core/index.js";
import { openStore } from "../../store/index.js";
import type { CliModule } from "../command.js";
import { declareExitCodes } from "../exit-codes.js";
import { printResult, reportError } from "../output.js";
import { locationFor, outputOptions, type StoreCliOptions, withStoreOptions } from "../scope.js";

/** `keel version`: the version matrix (cli, kernel, spec, applied database schema). */
export const versionCommands: CliModule = {
  register(program: Command): void {
    const version = withStoreOptions(
      program
        .command("version")
        .description("Print the version matrix: cli, kernel, spec, database schema."),
    ).action(async (raw: StoreCliOptions) => {
      const flags = outputOptions(raw);
      try {
        // Read-only: printing versions never creates or migrates a database.
        const store = await openStore({ location: locationFor(flags), readOnly: true });
        let dbSchema: number | null;
        try {
          dbSchema = store.openReport.kernel.to || null;
        } finally {
          await store.close();
        }
        const matrix = { sm: VERSION, kernel: VERSION, spec: CATALOG_SPEC_VERSION, dbSchema };
        printResult(flags, matrix, () =>
          [
            `sm           ${matrix.sm}`,
            `kernel       ${matrix.kernel}`,
            `spec         ${matrix.spec}`,
            `db-schema    ${matrix.dbSchema ?? "none"}`,
          ].join("\n"),
        );
      } catch (error) {
        reportError(flags, error);
      }
    });
    declareExitCodes(version, [0, 2]);
  },
};
