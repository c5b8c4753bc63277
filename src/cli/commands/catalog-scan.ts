import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import {
  diffScans,
  parseScanDump,
  type ScanMode,
  type ScanResult,
  type ScopeScan,
  scanScope,
} from "../../catalog/index.js";
import { KeelError } from "../../core/index.js";
import { catalogContext, scopeRoot, withStore } from "../catalog/context.js";
import { issuesExitCode, issuesTable, scanSummary } from "../catalog/print.js";
import type { CliModule } from "../command.js";
import { declareExitCodes } from "../exit-codes.js";
import { printResult, progress, reportError } from "../output.js";
import { outputOptions, type StoreCliOptions, withStoreOptions } from "../scope.js";

interface ScanFlags extends StoreCliOptions {
  node?: string;
  changed?: boolean;
  compareWith?: string;
  strict?: boolean;
  verbose?: number;
}

/**
 * Runs one scan for a verb, with a progress line on stderr once it has taken over a second.
 * `withResult` also reads the whole result (nodes and links) when the scan left it in the
 * database (`--changed` with nothing changed); the summary and issues never need it.
 */
export async function runCliScan(
  flags: ScanFlags,
  mode: ScanMode,
  write = true,
  withResult = true,
): Promise<{ scan: ScopeScan; result: ScanResult | null }> {
  const started = performance.now();
  return withStore(flags, async (store) => {
    const context = await catalogContext(flags, store);
    const scan = await scanScope(store, {
      root: context.root,
      registry: context.registry,
      config: context.config,
      scope: context.scope,
      mode,
      strict: flags.strict,
      write,
      onProgress: (done, total) => {
        if (performance.now() - started > 1000) progress(flags, `scanning… ${done}/${total} files`);
      },
      onDiagnostic: (message) => progress(flags, `warning: ${message}`),
    });
    return { scan, result: withResult ? await scan.result() : null };
  });
}

function timingLine(outcome: ScopeScan): string {
  const t = outcome.timings;
  const ms = (v: number) => `${Math.round(v)}ms`;
  return `load ${ms(t.load)} · walk ${ms(t.walk)} · parse ${ms(t.parse)} · tokenize ${ms(t.tokenize)} · detect ${ms(t.detect)} · rules ${ms(t.rules)} · write ${ms(t.write)} · reused ${outcome.reused}`;
}

/** `keel init` and `keel scan`. */
export const catalogScanCommands: CliModule = {
  register(program: Command): void {
    const scan = withStoreOptions(
      program
        .command("scan")
        .description(
          "Scan the scope's agent files into nodes, links and issues (exit 1 on error issues).",
        )
        .option("-n, --node <path>", "re-scan one node (path relative to the scope root)")
        .option("--changed", "re-read only files changed since the last scan")
        .option(
          "--compare-with <dump>",
          "compare a fresh scan with a saved `scan --json` dump; the database is not touched",
        )
        .option("--strict", "frontmatter warnings become errors")
        .option(
          "-v, --verbose",
          "print per-phase times on stderr",
          (_v, total: number) => total + 1,
          0,
        ),
    ).action(async (raw: ScanFlags) => {
      const flags = outputOptions(raw);
      try {
        if (
          [flags.node !== undefined, flags.changed, flags.compareWith !== undefined].filter(Boolean)
            .length > 1
        ) {
          throw new KeelError(
            "INVALID_ARGUMENT",
            "Use one of -n, --changed and --compare-with at a time.",
          );
        }
        if (flags.compareWith !== undefined) {
          const file = flags.compareWith;
          if (!existsSync(file)) {
            throw new KeelError("NOT_FOUND", `${file} does not exist.`, {
              hint: "Save a dump with `keel scan --json > scan.json`.",
            });
          }
          const before = parseScanDump(readFileSync(file, "utf8"), file);
          const { scan, result } = await runCliScan(flags, { kind: "full" }, false);
          const delta = diffScans(before, result as ScanResult);
          printResult(flags, { comparedWith: file, stats: scan.stats, ...delta }, () =>
            [
              `compared with ${file}: ${scanSummary(scan)}`,
              `nodes: +${delta.nodes.added.length} -${delta.nodes.removed.length} ~${delta.nodes.changed.length}`,
              ...delta.nodes.added.map((p) => `  + ${p}`),
              ...delta.nodes.removed.map((p) => `  - ${p}`),
              ...delta.nodes.changed.map((p) => `  ~ ${p}`),
              `links: +${delta.links.added.length} -${delta.links.removed.length}`,
              `issues: +${delta.issues.added.length} -${delta.issues.removed.length}`,
              ...delta.issues.added.map((i) => `  + [${i.severity}] ${i.ruleId}: ${i.message}`),
              ...delta.issues.removed.map((i) => `  - [${i.severity}] ${i.ruleId}: ${i.message}`),
            ].join("\n"),
          );
          process.exitCode = issuesExitCode(scan.issues);
          return;
        }
        const mode: ScanMode =
          flags.node !== undefined
            ? { kind: "node", path: flags.node.replace(/\\/g, "/").replace(/^\.\//, "") }
            : flags.changed
              ? { kind: "changed" }
              : { kind: "full" };
        const { scan, result } = await runCliScan(flags, mode, true, flags.json === true);
        if (flags.verbose && !flags.quiet) process.stderr.write(`${timingLine(scan)}\n`);
        printResult(flags, result, () =>
          [scanSummary(scan), ...(scan.issues.length ? [issuesTable(scan.issues)] : [])].join("\n"),
        );
        process.exitCode = issuesExitCode(scan.issues);
      } catch (error) {
        reportError(flags, error);
      }
    });
    declareExitCodes(scan, [0, 1, 2, 5]);

    const init = withStoreOptions(
      program
        .command("init")
        .description(
          "Set up the scope: the .keel folder, the database, its migrations, a first scan.",
        )
        .option("--no-scan", "skip the first scan")
        .option("--force", "rewrite an existing .keel/catalog.json"),
    ).action(async (raw: StoreCliOptions & { scan?: boolean; force?: boolean }) => {
      const flags = outputOptions(raw);
      try {
        const root = scopeRoot(flags);
        const keelDir = join(root, ".keel");
        mkdirSync(keelDir, { recursive: true });
        const configFile = join(keelDir, "catalog.json");
        const wroteConfig = flags.force === true || !existsSync(configFile);
        if (wroteConfig) {
          writeFileSync(
            configFile,
            `${JSON.stringify({ schemaVersion: 1, scan: { tokenize: true, strict: false } }, null, 2)}\n`,
          );
        }
        let summary: ReturnType<typeof scanSummary> | null = null;
        let stats = null;
        if (flags.scan !== false) {
          const { scan } = await runCliScan(flags, { kind: "full" }, true, false);
          summary = scanSummary(scan);
          stats = scan.stats;
        } else {
          await withStore(flags, async () => {});
        }
        printResult(flags, { ok: true, root, config: configFile, wroteConfig, stats }, () =>
          [
            `initialised ${keelDir}${wroteConfig ? " (wrote catalog.json)" : ""}`,
            ...(summary ? [summary] : []),
          ].join("\n"),
        );
      } catch (error) {
        reportError(flags, error);
      }
    });
    declareExitCodes(init, [0, 2]);
  },
};
