import { readFile, writeFile } from "node:fs/promises";
import type { Command } from "commander";
import { KeelError } from "../../core/index.js";
import {
  DecisionMemory,
  type MemoryRecord,
  openAiEmbedder,
  type SearchHit,
} from "../../memory/index.js";
import type { CliModule } from "../command.js";
import { printResult, reportError, table } from "../output.js";
import { openCliStore, outputOptions, type StoreCliOptions, withStoreOptions } from "../scope.js";
import { limitFlag } from "./runtime-cli.js";

interface MemoryFlags extends StoreCliOptions {
  namespace?: string;
  source?: string;
}

/** Opens the store and a DecisionMemory on it (an embedder from KEEL_EMBEDDINGS_URL/_MODEL). */
async function withMemory<F extends MemoryFlags>(
  flags: F,
  work: (memory: DecisionMemory, options: F) => Promise<void>,
): Promise<void> {
  const options = outputOptions(flags);
  const store = await openCliStore(options);
  try {
    const url = process.env.KEEL_EMBEDDINGS_URL;
    const model = process.env.KEEL_EMBEDDINGS_MODEL;
    const embedder =
      url && model
        ? openAiEmbedder({ baseUrl: url, model, apiKey: process.env.KEEL_EMBEDDINGS_API_KEY })
        : null;
    await work(new DecisionMemory(store, { namespace: flags.namespace, embedder }), options);
  } finally {
    await store.close();
  }
}

/** An action handler: commander passes the positionals, then the options, then the command. */
const run =
  <F extends MemoryFlags, A extends unknown[]>(
    work: (memory: DecisionMemory, options: F, ...args: A) => Promise<void>,
  ) =>
  (...args: unknown[]) => {
    const flags = args[args.length - 2] as F;
    const positional = args.slice(0, -2) as A;
    return withMemory(flags, (memory, options) => work(memory, options, ...positional)).catch(
      (error: unknown) => reportError(flags, error),
    );
  };

function describeRecord(record: MemoryRecord): string {
  return [
    `${record.kind} ${record.id} [${record.status}] ${record.namespace}/${record.target}`,
    `  ${record.title}`,
    `  ${record.rationale}`,
    record.superseded_by ? `  superseded by ${record.superseded_by}` : "",
    record.supersedes.length > 0 ? `  supersedes ${record.supersedes.join(", ")}` : "",
  ]
    .filter(Boolean)
    .join("\n");
}

function hitsTable(hits: readonly SearchHit[]): string {
  return hits.length === 0
    ? "no results"
    : table(
        ["id", "score", "kind", "status", "target", "title"],
        hits.map((h) => [h.id, h.score.toFixed(3), h.kind, h.status, h.target, h.preview]),
      );
}

const source = (value: string | undefined) => (value ?? "user") as "user" | "agent" | "system";
const many = (value: string, previous: string[] = []) => [...previous, value];

/**
 * `keel memory …`: the decision memory (seed 001) — record, supersede, propose, accept, reject,
 * forget, link, search, context, sync, export, import, markdown, maintain, list, show, history,
 * stats. A second decision on an occupied target exits 3 (duplicate) naming the active ids.
 */
export const memoryCommands: CliModule = {
  register(program: Command): void {
    const memory = program
      .command("memory")
      .description("Decision memory: decisions, proposals, events, search (seed 001).");
    const verb = (spec: string, description: string) =>
      withStoreOptions(memory.command(spec).description(description))
        .option("--namespace <name>", "namespace (default: default)")
        .option("--source <source>", "who records it: user, agent, system (default user)");

    verb("record", "Record a decision on a target.")
      .requiredOption("--title <text>", "what was decided")
      .requiredOption("--target <name>", "what it is about (3+ characters)")
      .requiredOption("--rationale <text>", "why (10+ characters)")
      .option("--consequence <text>", "a consequence (repeatable)", many, [])
      .option("--keyword <word>", "a search keyword (repeatable)", many, [])
      .option("--kind <kind>", "decision, constraint, assumption or intervention", "decision")
      .action(
        run(
          async (
            m,
            o: MemoryFlags & {
              title: string;
              target: string;
              rationale: string;
              consequence: string[];
              keyword: string[];
              kind: string;
            },
          ) => {
            const record = await m.record({
              title: o.title,
              target: o.target,
              rationale: o.rationale,
              consequences: o.consequence,
              keywords: o.keyword,
              kind: o.kind as "decision",
              source: source(o.source),
            });
            printResult(o, { ok: true, record }, () => describeRecord(record));
          },
        ),
      );

    verb(
      "supersede",
      "Replace active decisions with a new one (name every active one on the target).",
    )
      .requiredOption("--old <id>", "a decision it replaces (repeatable)", many, [])
      .requiredOption("--title <text>", "the new decision")
      .requiredOption("--target <name>", "its target")
      .requiredOption("--rationale <text>", "why it changes (15+ characters)")
      .option("--consequence <text>", "a consequence (repeatable)", many, [])
      .action(
        run(
          async (
            m,
            o: MemoryFlags & {
              old: string[];
              title: string;
              target: string;
              rationale: string;
              consequence: string[];
            },
          ) => {
            const record = await m.supersede({
              title: o.title,
              target: o.target,
              rationale: o.rationale,
              old_decision_ids: o.old,
              consequences: o.consequence,
              source: source(o.source),
            });
            printResult(o, { ok: true, record }, () => describeRecord(record));
          },
        ),
      );

    verb("propose", "Record a draft proposal (a hypothesis).")
      .requiredOption("--title <text>", "the proposal")
      .requiredOption("--target <name>", "its target")
      .requiredOption("--rationale <text>", "why (10+ characters)")
      .requiredOption("--confidence <n>", "0 to 1")
      .option("--supersedes <id>", "an active decision it would replace (repeatable)", many, [])
      .action(
        run(
          async (
            m,
            o: MemoryFlags & {
              title: string;
              target: string;
              rationale: string;
              confidence: string;
              supersedes: string[];
            },
          ) => {
            const record = await m.propose({
              title: o.title,
              target: o.target,
              rationale: o.rationale,
              confidence: Number(o.confidence),
              suggested_supersedes: o.supersedes,
              source: source(o.source),
            });
            printResult(o, { ok: true, record }, () => describeRecord(record));
          },
        ),
      );

    verb("accept <proposal-id>", "Accept a draft proposal as an active decision.").action(
      run(async (m, o: MemoryFlags, id: string) => {
        const record = await m.accept(id, source(o.source));
        printResult(o, { ok: true, record }, () => describeRecord(record));
      }),
    );

    verb("reject <proposal-id>", "Reject a draft proposal.")
      .option("--reason <text>", "why")
      .action(
        run(async (m, o: MemoryFlags & { reason?: string }, id: string) => {
          const record = await m.reject(id, o.reason ?? null, source(o.source));
          printResult(o, { ok: true, record }, () => describeRecord(record));
        }),
      );

    verb("forget <id>", "Forget a record for good (purge it, its history and vector).").action(
      run(async (m, o: MemoryFlags, id: string) => {
        await m.forget(id, source(o.source));
        printResult(o, { ok: true, forgotten: id }, () => `forgot ${id}`);
      }),
    );

    verb("link <event-id> <record-id>", "Link an episodic event to a record as evidence.").action(
      run(async (m, o: MemoryFlags, eventId: string, recordId: string) => {
        const id = Number(eventId);
        if (!Number.isInteger(id))
          throw new KeelError(
            "INVALID_ARGUMENT",
            `An event id is a whole number, not "${eventId}".`,
          );
        await m.link(id, recordId);
        printResult(
          o,
          { ok: true, event_id: id, record_id: recordId },
          () => `linked event ${id} to ${recordId}`,
        );
      }),
    );

    verb(
      "search <query>",
      "Search records (full text, fused with vectors when an embedder is set).",
    )
      .option("--limit <n>", "1-50 (default 5)")
      .option("--offset <n>", "skip this many")
      .option("--mode <mode>", "strict, balanced (default) or audit")
      .action(
        run(
          async (
            m,
            o: MemoryFlags & { limit?: string; offset?: string; mode?: string },
            query: string,
          ) => {
            const results = await m.search({
              query,
              limit: o.limit ? Number(o.limit) : undefined,
              offset: o.offset ? Number(o.offset) : undefined,
              mode: o.mode as "strict" | undefined,
            });
            printResult(o, { ok: true, results }, () => hitsTable(results));
          },
        ),
      );

    verb(
      "context <prompt>",
      "The memory to inject before a prompt (empty when nothing is relevant).",
    )
      .option("--limit <n>", "at most this many records (default 3)")
      .option("--threshold <score>", "minimum score, 0-1 (default 0.3)")
      .option("--session <id>", "skip what this session had in its last 10 injections")
      .action(
        run(
          async (
            m,
            o: MemoryFlags & { limit?: string; threshold?: string; session?: string },
            prompt: string,
          ) => {
            const context = await m.context(prompt, {
              limit: o.limit ? limitFlag(o.limit, 3) : undefined,
              threshold: o.threshold ? Number(o.threshold) : undefined,
              session: o.session,
            });
            printResult(o, { ok: true, ...context }, () => context.text || "nothing relevant");
          },
        ),
      );

    verb(
      "sync [repo]",
      "Import a git repository's recent commits as commit_change events (read-only).",
    )
      .option("--limit <n>", "1-100 commits (default 20)")
      .action(
        run(async (m, o: MemoryFlags & { limit?: string }, repo?: string) => {
          const result = await m.syncGit({ repoPath: repo ?? ".", limit: limitFlag(o.limit, 20) });
          printResult(
            o,
            { ok: true, indexed_commits: result.indexedCommits },
            () => `${result.indexedCommits} new commits`,
          );
        }),
      );

    verb("export <file>", "Write a bundle (every record and event) as JSON.").action(
      run(async (m, o: MemoryFlags, file: string) => {
        const bundle = await m.exportBundle(o.namespace);
        await writeFile(file, `${JSON.stringify(bundle, null, 2)}\n`, "utf8");
        printResult(
          o,
          { ok: true, file, records: bundle.records.length, events: bundle.events.length },
          () =>
            `wrote ${bundle.records.length} records and ${bundle.events.length} events to ${file}`,
        );
      }),
    );

    verb("import <file>", "Import a bundle written by `keel memory export`.").action(
      run(async (m, o: MemoryFlags, file: string) => {
        let bundle: unknown;
        try {
          bundle = JSON.parse(await readFile(file, "utf8"));
        } catch (cause) {
          throw new KeelError(
            "INVALID_ARGUMENT",
            `Cannot read the bundle ${file}: ${(cause as Error).message}`,
            { cause },
          );
        }
        const result = await m.importBundle(bundle);
        printResult(
          o,
          { ok: true, ...result },
          () => `imported ${result.records} records and ${result.events} events`,
        );
      }),
    );

    verb(
      "markdown <dir>",
      "Write one markdown file per record (front-matter + text) for review in git.",
    ).action(
      run(async (m, o: MemoryFlags, dir: string) => {
        const files = await m.exportMarkdown(dir);
        printResult(o, { ok: true, dir, files }, () => `wrote ${files.length} files under ${dir}`);
      }),
    );

    verb(
      "maintain",
      "One maintenance pass: decay, forgetting, vitality, episodic retention.",
    ).action(
      run(async (m, o: MemoryFlags) => {
        const report = await m.maintain();
        printResult(
          o,
          { ok: true, report },
          () =>
            `${report.decayed} decayed, ${report.forgotten.length} forgotten, ${report.vitalityChanged} vitality changes, ${report.archivedEvents} events archived, ${report.prunedEvents} pruned`,
        );
      }),
    );

    verb("list", "Records of the namespace, newest first.")
      .option("--kind <kind>", "only this kind")
      .option("--status <status>", "only this status")
      .option("--target <name>", "only this target")
      .option("--limit <n>", "at most this many (default 100)")
      .action(
        run(
          async (
            m,
            o: MemoryFlags & { kind?: string; status?: string; target?: string; limit?: string },
          ) => {
            const records = await m.list({
              kind: o.kind,
              status: o.status,
              target: o.target,
              limit: limitFlag(o.limit, 100),
            });
            printResult(o, { ok: true, records }, () =>
              records.length === 0
                ? "no records"
                : table(
                    ["id", "kind", "status", "target", "title"],
                    records.map((r) => [r.id, r.kind, r.status, r.target, r.title]),
                  ),
            );
          },
        ),
      );

    verb("show <id>", "One record with its links.").action(
      run(async (m, o: MemoryFlags, id: string) => {
        const record = await m.get(id);
        printResult(o, { ok: true, record }, () => describeRecord(record));
      }),
    );

    verb("history <id>", "Every version of a record.").action(
      run(async (m, o: MemoryFlags, id: string) => {
        const history = await m.history(id);
        printResult(o, { ok: true, history }, () =>
          table(
            ["recorded", "change", "status", "superseded by"],
            history.map((h) => [h.recorded_at, h.change, h.status, h.superseded_by ?? "-"]),
          ),
        );
      }),
    );

    verb("stats", "Counts by kind and status.").action(
      run(async (m, o: MemoryFlags) => {
        const stats = await m.stats();
        printResult(
          o,
          { ok: true, stats },
          () =>
            `${stats.records} records, ${stats.events} events\n${JSON.stringify(stats.byStatus)}`,
        );
      }),
    );
  },
};
