import type { Command } from "commander";
import { diagramOf, parseNodeQuery, renderMarkdown, selectScan } from "../../catalog/index.js";
import { KeelError } from "../../core/index.js";
import { catalogContext, withStore } from "../catalog/context.js";
import { requireScan } from "../catalog/load.js";
import type { CliModule } from "../command.js";
import { declareExitCodes } from "../exit-codes.js";
import { reportError } from "../output.js";
import { outputOptions, type StoreCliOptions, withStoreOptions } from "../scope.js";

/** `keel graph` and `keel export`: the stored scan drawn by a renderer, or exported. */
export const catalogGraphCommands: CliModule = {
  register(program: Command): void {
    const graph = withStoreOptions(
      program
        .command("graph")
        .description("Draw the graph of the last scan with a renderer (ascii, mermaid, dot, json).")
        .option("--format <format>", "the renderer's format", "ascii"),
    ).action(async (raw: StoreCliOptions & { format: string }) => {
      const flags = outputOptions(raw);
      try {
        const format = flags.json && raw.format === "ascii" ? "json" : flags.format;
        const [context, scan] = await withStore(
          flags,
          async (store) => [await catalogContext(flags, store), await requireScan(store)] as const,
        );
        process.stdout.write(diagramOf(context.registry, format, scan));
      } catch (error) {
        reportError(flags, error);
      }
    });
    declareExitCodes(graph, [0, 2]);

    const exportCommand = withStoreOptions(
      program
        .command("export")
        .description(
          "Export the nodes a query selects, with their links and issues (json, md, mermaid).",
        )
        .argument(
          "<query>",
          'e.g. "kind:skill path:.claude/** issue:any" (see docs/catalog.md); "*" for all',
        )
        .option("--format <format>", "json, md or mermaid", "json"),
    ).action(async (query: string, raw: StoreCliOptions & { format: string }) => {
      const flags = outputOptions(raw);
      try {
        if (!["json", "md", "mermaid"].includes(flags.format)) {
          throw new KeelError(
            "CATALOG_FORMAT_UNKNOWN",
            `--format must be json, md or mermaid, not "${flags.format}".`,
          );
        }
        const [context, scan] = await withStore(
          flags,
          async (store) => [await catalogContext(flags, store), await requireScan(store)] as const,
        );
        const selected = selectScan(scan, parseNodeQuery(query, scan));
        if (flags.format === "json") {
          process.stdout.write(`${JSON.stringify({ query, ...selected })}\n`);
        } else if (flags.format === "md") {
          process.stdout.write(renderMarkdown(selected, `Catalog export: ${query}`));
        } else {
          process.stdout.write(diagramOf(context.registry, "mermaid", selected));
        }
      } catch (error) {
        reportError(flags, error);
      }
    });
    declareExitCodes(exportCommand, [0, 2]);
  },
};
