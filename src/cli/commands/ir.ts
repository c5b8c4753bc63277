import { dirname, resolve } from "node:path";
import type { Command } from "commander";
import { KeelError } from "../../core/index.js";
import {
  documentWarnings,
  dumps,
  graphHash,
  IR_VERSION,
  isModelName,
  jsonSchemaFor,
  knownNodeKinds,
  lintDocument,
  loadKindsModule,
  loadNodeKinds,
  loadPluginPacks,
  modelNames,
  moduleTarget,
  type Problem,
  parseVersion,
  structuralHash,
  validateDocument,
} from "../../ir/index.js";
import { lintTools, loadDocumentTools, toolModules } from "../../runtime/index.js";
import { discoverStorePlugins } from "../../store/index.js";
import { pc } from "../colors.js";
import type { CliModule } from "../command.js";
import { type OutputOptions, printResult, reportError, table } from "../output.js";
import { openCliStore, outputOptions, type StoreCliOptions, withStoreOptions } from "../scope.js";
import {
  parseJsonOption,
  printDocumentRun,
  readDocument,
  runDocumentGoverned,
} from "./document-runs.js";
import { autonomyFlag } from "./runtime-cli.js";

/** `keel ir validate|hash|schema`: checking, hashing and describing IR documents. */
export const irCommands: CliModule = {
  register(program: Command): void {
    const ir = program.command("ir").description("Portable graph documents (the IR).");

    ir.command("validate <file>")
      .description("Validate an IR document; exit 0 when valid, 1 with problems, 5 when missing.")
      .option("--node-kinds <kinds>", "comma-separated node kinds to accept (others are problems)")
      .option(
        "--kinds <module>",
        "check node kinds: the built-ins plus this module's `nodeKinds`; repeatable",
        collect,
        [],
      )
      .option("--json", "print the result as JSON")
      .option("-q, --quiet", "print nothing; use the exit code")
      .action(async (file: string, options: ValidateFlags) => {
        try {
          const result = validateDocument(await readDocument(file), await kindsToCheck(options));
          const warnings = result.ok ? documentWarnings(result.document) : [];
          printResult(options, { ok: result.ok, file, problems: result.problems, warnings }, () =>
            result.ok
              ? [
                  `${pc.green("valid")} ${file}: ${result.document.id}, ${result.document.nodes.length} node(s), IR ${result.document.ir_version}`,
                  ...(warnings.length > 0 ? [renderWarnings(file, warnings)] : []),
                ].join("\n")
              : renderProblems(file, result.problems),
          );
          if (!result.ok) process.exitCode = 1;
        } catch (error) {
          reportError(options, error);
        }
      });

    withStoreOptions(
      program
        .command("run <file>")
        .description("Run an IR document durably on the project database.")
        .option("--input <json>", "the run's input state (JSON object)", "{}")
        .option("--thread <id>", "thread to run on (default: a new one)")
        .option("--respond <json>", "answer the interrupt a run on --thread is waiting for")
        .option(
          "--capability <name...>",
          "with --respond: capabilities you hold (the interrupt may require one)",
        )
        .option(
          "--autonomy <level>",
          "the run's autonomy level, A0-A4 (default A2): with a tool's risk it decides the tool's gate",
        )
        .option(
          "--packs <dir>",
          "where governance packs are (<id>.clp); default: packs/ beside the file",
        )
        .option(
          "--kinds <module>",
          "a module exporting `nodeKinds` (kind -> factory) and/or `stateClasses` (name -> zod object) the document uses; repeatable",
          collect,
          [],
        ),
    ).action((file: string, flags: RunFlags) => runDocument(file, outputOptions(flags)));

    ir.command("lint <file>")
      .description(
        "Warn where a valid document is not fail-closed (an unmatched answer falling into a node with effects, tools without a risk level, approvals without an expiry) or is probably a mistake (a join naming no node, an on_timeout that never acts, at IR 1.1.0 a condition that is not CLIPS). Exit 0 clean, 1 warnings or problems, 5 missing.",
      )
      .option(
        "--kinds <module>",
        "a kinds module the document's runs use (its `tools` too); repeatable",
        collect,
        [],
      )
      .option("--json", "print the result as JSON")
      .option("-q, --quiet", "print nothing; use the exit code")
      .action(async (file: string, options: ValidateFlags) => {
        try {
          const result = validateDocument(await readDocument(file));
          if (!result.ok) {
            printResult(options, { ok: false, file, problems: result.problems }, () =>
              renderProblems(file, result.problems),
            );
            process.exitCode = 1;
            return;
          }
          const doc = result.document;
          const kinds = options.kinds.map((module) => moduleTarget(module, process.cwd()));
          const provided: Record<string, unknown> = {};
          for (const module of options.kinds) {
            Object.assign(provided, (await loadKindsModule(module, ".")).nodeKinds);
          }
          const tools = await loadDocumentTools(
            toolModules(doc, dirname(resolve(file)), kinds, provided),
          );
          const warnings = [
            ...documentWarnings(doc),
            ...lintDocument(doc),
            ...lintTools(doc, tools),
          ];
          printResult(options, { ok: warnings.length === 0, file, warnings }, () =>
            warnings.length === 0 ? `${pc.green("clean")} ${file}` : renderWarnings(file, warnings),
          );
          if (warnings.length > 0) process.exitCode = 1;
        } catch (error) {
          reportError(options, error);
        }
      });

    ir.command("hash <file>")
      .description(
        "Print a valid document's graph hash (sha256 of its canonical form without migrate), as runs record it.",
      )
      .option(
        "--state-class-schema <file>",
        "the JSON Schema of the document's state_class (as Pydantic writes it), for the structural hash",
      )
      .option("--json", "print the result as JSON")
      .option("-q, --quiet", "print nothing; use the exit code")
      .action(async (file: string, options: OutputOptions & { stateClassSchema?: string }) => {
        try {
          const stateClassSchema =
            options.stateClassSchema === undefined
              ? undefined
              : await readJsonObject(options.stateClassSchema, "--state-class-schema");
          const result = validateDocument(await readDocument(file));
          if (!result.ok) {
            printResult(options, { ok: false, file, problems: result.problems }, () =>
              renderProblems(file, result.problems),
            );
            process.exitCode = 1;
            return;
          }
          const hash = graphHash(result.document);
          // Stargraph's structural hash beside it; null for a state_class whose schema is not given.
          let structural: string | null = null;
          if (result.document.state_class === null || stateClassSchema !== undefined) {
            structural = structuralHash(result.document, { stateClassSchema });
          }
          printResult(
            options,
            { ok: true, file, id: result.document.id, hash, structural_hash: structural },
            () => hash,
          );
        } catch (error) {
          reportError(options, error);
        }
      });

    ir.command("compile-authoring <file>")
      .description(
        "Compile a Stargraph authoring-format YAML file (id, state, nodes, routes) to an IR document and print it.",
      )
      .option("--json", "print the result as JSON")
      .action(async (file: string, options: OutputOptions) => {
        try {
          const text = await readDocument(file);
          const result = validateDocument(text);
          if (!result.ok) {
            printResult(options, { ok: false, file, problems: result.problems }, () =>
              renderProblems(file, result.problems),
            );
            process.exitCode = 1;
            return;
          }
          const document = JSON.parse(dumps(result.document)) as unknown;
          printResult(options, { ok: true, file, document }, () =>
            JSON.stringify(document, null, 2),
          );
        } catch (error) {
          reportError(options, error);
        }
      });

    ir.command("schema [model]")
      .description("Print the JSON Schema of an IR model (default IRDocument).")
      .option("--list", "list the model names")
      .option("--ir-version <version>", "publish this IR version's vocabulary", IR_VERSION)
      .option("--json", "print compact JSON")
      .action(
        (
          model: string | undefined,
          options: OutputOptions & { list?: boolean; irVersion: string },
        ) => {
          try {
            if (options.list) {
              printResult(options, { models: modelNames() }, () => modelNames().join("\n"));
              return;
            }
            const name = model ?? "IRDocument";
            if (!isModelName(name)) {
              throw new KeelError("NOT_FOUND", `No IR model named "${name}".`, {
                details: { model: name, models: modelNames() },
                hint: `Models: ${modelNames().join(", ")}.`,
              });
            }
            parseVersion(options.irVersion);
            const schema = jsonSchemaFor(name, { irVersion: options.irVersion });
            printResult(options, schema, () => JSON.stringify(schema, null, 2));
          } catch (error) {
            reportError(options, error);
          }
        },
      );
  },
};

/** A JSON file holding an object (a JSON Schema), or a clear error naming the flag. */
async function readJsonObject(file: string, flag: string): Promise<Record<string, unknown>> {
  const value = parseJsonOption(await readDocument(file), flag);
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new KeelError("INVALID_ARGUMENT", `${flag} ${file} holds no JSON object.`, {
      details: { file },
      hint: "Give the JSON Schema object Pydantic's model_json_schema() writes for the class.",
    });
  }
  return value as Record<string, unknown>;
}

function renderWarnings(file: string, warnings: readonly Problem[]): string {
  return [
    `${pc.yellow("warnings")} ${file}: ${warnings.length}`,
    table(
      ["path", "code", "warning"],
      warnings.map((w) => [w.path, w.code, w.message]),
    ),
    "",
    pc.dim([...new Set(warnings.map((w) => `${w.code}: ${w.hint}`))].join("\n")),
  ].join("\n");
}

function renderProblems(file: string, problems: readonly Problem[]): string {
  const rows = problems.map((p) => [p.path, p.code, p.message]);
  const hints = [...new Set(problems.map((p) => `${p.code}: ${p.hint}`))];
  return [
    `${pc.red("invalid")} ${file}: ${problems.length} problem(s)`,
    table(["path", "code", "problem"], rows),
    "",
    pc.dim(hints.join("\n")),
  ].join("\n");
}

interface RunFlags extends StoreCliOptions {
  input: string;
  thread?: string;
  respond?: string;
  packs?: string;
  kinds: string[];
  capability?: string[];
  autonomy?: string;
}

interface ValidateFlags extends OutputOptions {
  nodeKinds?: string;
  kinds: string[];
}

/** Commander's accumulator for a repeatable flag. */
function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** The node kinds `ir validate` checks against: none unless `--node-kinds` or `--kinds` is given. */
async function kindsToCheck(options: ValidateFlags): Promise<{ nodeKinds?: string[] }> {
  if (options.nodeKinds === undefined && options.kinds.length === 0) return {};
  const kinds = new Set(options.nodeKinds?.split(",").map((kind) => kind.trim()) ?? []);
  if (options.kinds.length > 0) for (const kind of Object.keys(knownNodeKinds())) kinds.add(kind);
  for (const module of options.kinds)
    for (const kind of Object.keys(await loadNodeKinds(module, process.cwd()))) kinds.add(kind);
  return { nodeKinds: [...kinds] };
}

async function runDocument(file: string, options: RunFlags): Promise<void> {
  try {
    const store = await openCliStore(options);
    try {
      const outcome = await runDocumentGoverned(store, file, {
        input: parseJsonOption(options.input, "--input"),
        ...(options.thread !== undefined ? { threadId: options.thread } : {}),
        ...(options.respond !== undefined
          ? { respond: parseJsonOption(options.respond, "--respond") }
          : {}),
        ...(options.packs !== undefined ? { packsDir: options.packs } : {}),
        kinds: options.kinds,
        capabilities: options.capability ?? [],
        autonomy: autonomyFlag(options.autonomy, "A2"),
        pluginPacks: await loadPluginPacks(await discoverStorePlugins(store)),
      });
      printDocumentRun(options, outcome);
    } finally {
      await store.close();
    }
  } catch (error) {
    reportError(options, error);
  }
}
