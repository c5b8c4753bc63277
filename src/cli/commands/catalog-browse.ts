import type { Command } from "commander";
import { listFindings, NODE_KINDS, NODE_SORTS, nodeDetail } from "../../catalog/index.js";
import { KeelError } from "../../core/index.js";
import { withStore } from "../catalog/context.js";
import { requireIssues, requireScan } from "../catalog/load.js";
import { issuesExitCode, issuesTable } from "../catalog/print.js";
import type { CliModule } from "../command.js";
import { declareExitCodes } from "../exit-codes.js";
import { printResult, reportError, table } from "../output.js";
import { outputOptions, type StoreCliOptions, withStoreOptions } from "../scope.js";

interface ListFlags extends StoreCliOptions {
  kind?: string;
  issue?: boolean;
  sortBy?: string;
  limit?: string;
}

function positiveInteger(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) {
    throw new KeelError(
      "INVALID_ARGUMENT",
      `${flag} must be a whole number of at least 1, not "${value}".`,
    );
  }
  return n;
}

/** `keel list`, `show`, `check`, `findings`: the stored scan, read without scanning. */
export const catalogBrowseCommands: CliModule = {
  register(program: Command): void {
    const list = withStoreOptions(
      program
        .command("list")
        .description("List the nodes of the last scan (--json: an array of nodes).")
        .option("--kind <kind>", `only nodes of this kind (${NODE_KINDS.join(", ")})`)
        .option("--issue", "only nodes that have an issue")
        .option("--sort-by <field>", `sort by ${Object.keys(NODE_SORTS).join(", ")}`, "path")
        .option("--limit <n>", "at most n nodes"),
    ).action(async (raw: ListFlags) => {
      const flags = outputOptions(raw);
      try {
        if (flags.kind !== undefined && !(NODE_KINDS as readonly string[]).includes(flags.kind)) {
          throw new KeelError(
            "INVALID_ARGUMENT",
            `--kind must be one of ${NODE_KINDS.join(", ")}, not "${flags.kind}".`,
          );
        }
        const sort = NODE_SORTS[flags.sortBy ?? "path"];
        if (!sort) {
          throw new KeelError(
            "INVALID_ARGUMENT",
            `--sort-by must be one of ${Object.keys(NODE_SORTS).join(", ")}, not "${flags.sortBy}".`,
          );
        }
        const limit = positiveInteger(flags.limit, "--limit");
        const scan = await withStore(flags, requireScan);
        const withIssues = new Set(scan.issues.flatMap((i) => i.nodeIds));
        const nodes = scan.nodes
          .filter((n) => flags.kind === undefined || n.kind === flags.kind)
          .filter((n) => !flags.issue || withIssues.has(n.path))
          .sort(sort)
          .slice(0, limit);
        printResult(flags, nodes, () =>
          nodes.length === 0
            ? "no nodes"
            : table(
                ["path", "kind", "title", "tokens", "in", "out", "issues"],
                nodes.map((n) => [
                  n.path,
                  n.kind,
                  n.title ?? "",
                  n.tokens ? String(n.tokens.total) : "-",
                  String(n.linksInCount),
                  String(n.linksOutCount),
                  String(scan.issues.filter((i) => i.nodeIds.includes(n.path)).length),
                ]),
              ),
        );
      } catch (error) {
        reportError(flags, error);
      }
    });
    declareExitCodes(list, [0, 2]);

    const show = withStoreOptions(
      program
        .command("show")
        .description(
          "Show one node: weight, frontmatter, links in and out, issues, findings, summary.",
        )
        .argument("<path>", "the node's path, as `keel list` prints it"),
    ).action(async (path: string, raw: StoreCliOptions) => {
      const flags = outputOptions(raw);
      try {
        const detail = await withStore(flags, async (store) =>
          nodeDetail(store, await requireScan(store), path),
        );
        printResult(flags, detail, () => {
          const { node } = detail;
          const tokens = node.tokens
            ? `${node.tokens.frontmatter} + ${node.tokens.body} = ${node.tokens.total} tokens`
            : "tokens not counted";
          return [
            `${node.path}  [${node.kind}, ${node.adapter}]`,
            node.title ? `title        ${node.title}` : "",
            node.description ? `description  ${node.description}` : "",
            node.version ? `version      ${node.version}` : "",
            `weight       ${node.bytes.frontmatter} + ${node.bytes.body} = ${node.bytes.total} bytes; ${tokens}`,
            `links out (${detail.linksOut.length})`,
            ...detail.linksOut.map((l) => `  ${l.kind} → ${l.target}`),
            `links in (${detail.linksIn.length})`,
            ...detail.linksIn.map((l) => `  ${l.source} ${l.kind}`),
            `issues (${detail.issues.length})`,
            ...detail.issues.map((i) => `  [${i.severity}] ${i.ruleId}: ${i.message}`),
            ...(detail.findings.length
              ? [
                  `findings (${detail.findings.length})`,
                  ...detail.findings.map((f) => `  ${f.kind}: ${f.message}`),
                ]
              : []),
          ]
            .filter((line) => line !== "")
            .join("\n");
        });
      } catch (error) {
        reportError(flags, error);
      }
    });
    declareExitCodes(show, [0, 2, 5]);

    const check = withStoreOptions(
      program
        .command("check")
        .description(
          "Print the last scan's issues from the database (exit 1 when any is an error).",
        ),
    ).action(async (raw: StoreCliOptions) => {
      const flags = outputOptions(raw);
      try {
        const issues = await withStore(flags, requireIssues);
        printResult(flags, issues, () => issuesTable(issues));
        process.exitCode = issuesExitCode(issues);
      } catch (error) {
        reportError(flags, error);
      }
    });
    declareExitCodes(check, [0, 1, 2]);

    const findings = withStoreOptions(
      program
        .command("findings")
        .description(
          "Probabilistic findings (e.g. summaries made from an older body): --json prints an array.",
        )
        .option("--kind <kind>", "only findings of this kind (stale-summary)")
        .option("--since <date>", "only findings detected at or after this date (ISO 8601)")
        .option("--threshold <n>", "only findings at least this confident (0–1)"),
    ).action(
      async (raw: StoreCliOptions & { kind?: string; since?: string; threshold?: string }) => {
        const flags = outputOptions(raw);
        try {
          const since = flags.since === undefined ? undefined : Date.parse(flags.since);
          if (since !== undefined && Number.isNaN(since)) {
            throw new KeelError(
              "INVALID_ARGUMENT",
              `--since must be an ISO 8601 date, not "${flags.since}".`,
            );
          }
          const threshold = flags.threshold === undefined ? undefined : Number(flags.threshold);
          if (threshold !== undefined && !(threshold >= 0 && threshold <= 1)) {
            throw new KeelError(
              "INVALID_ARGUMENT",
              `--threshold must be a number from 0 to 1, not "${flags.threshold}".`,
            );
          }
          const found = await withStore(flags, async (store) => {
            await requireScan(store);
            return (await listFindings(store, { since, threshold })).filter(
              (f) => flags.kind === undefined || f.kind === flags.kind,
            );
          });
          printResult(flags, found, () =>
            found.length === 0
              ? "no findings"
              : table(
                  ["kind", "node", "message"],
                  found.map((f) => [f.kind, f.nodeId, f.message]),
                ),
          );
        } catch (error) {
          reportError(flags, error);
        }
      },
    );
    declareExitCodes(findings, [0, 2]);
  },
};
