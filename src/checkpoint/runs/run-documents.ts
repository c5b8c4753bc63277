import { KeelError } from "../../core/index.js";
import type { DurableSaver } from "../durable/durable-saver.js";
import { toInt } from "../durable/rows.js";
import type { SqlRunner } from "../durable/sql-runner.js";

/** The document a run was started from: enough to continue the run by its id alone. */
export interface RunDocument {
  /** The run's id. */
  runId: string;
  /** Absolute path of the document file. */
  documentPath: string;
  /** The document's `id`. */
  documentId: string;
  /** The graph hash the run started with (what the resume gate compares against). */
  graphHash: string;
  /** The run's input state, so a run that failed before its first checkpoint can start again. */
  input: unknown;
  /** Where the run's governance packs were loaded from, when given explicitly. */
  packsDir: string | null;
  /** Modules the run's node kinds were loaded from (`keel run --kinds`): file URLs or packages. */
  nodeKinds: string[];
  createdAt: number;
}

interface RawRunDocument {
  run_id: string;
  document_path: string;
  document_id: string;
  graph_hash: string;
  input_json: string;
  packs_dir: string | null;
  node_kinds_json: string;
  created_at: number | string;
}

/**
 * Links run records to the document file they ran (`state_run_documents`, one row per run,
 * deleted with its run).
 *
 * @example
 * const documents = new RunDocumentStore(saver);
 * await documents.record({ runId: run.id, documentPath: "/abs/refund.json", documentId: "g",
 *   graphHash: hash, input: {}, packsDir: null });
 * const doc = await documents.get(run.id);
 */
export class RunDocumentStore {
  private readonly db: SqlRunner;

  constructor(saver: DurableSaver) {
    this.db = saver.sql;
  }

  /** Records the document of a run (once; a run has one document). */
  async record(
    document: Omit<RunDocument, "createdAt" | "nodeKinds"> & { nodeKinds?: string[] },
  ): Promise<RunDocument> {
    const createdAt = Date.now();
    const nodeKinds = document.nodeKinds ?? [];
    await this.db.run(
      "INSERT INTO state_run_documents (run_id, document_path, document_id, graph_hash, input_json, packs_dir, node_kinds_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      [
        document.runId,
        document.documentPath,
        document.documentId,
        document.graphHash,
        JSON.stringify(document.input ?? null),
        document.packsDir,
        JSON.stringify(nodeKinds),
        createdAt,
      ],
    );
    return { ...document, nodeKinds, createdAt };
  }

  /** The document of a run, or NOT_FOUND when the run was not started from a document. */
  async get(runId: string): Promise<RunDocument> {
    const rows = await this.db.all<RawRunDocument>(
      "SELECT run_id, document_path, document_id, graph_hash, input_json, packs_dir, node_kinds_json, created_at FROM state_run_documents WHERE run_id = ?",
      [runId],
    );
    const raw = rows[0];
    if (!raw) {
      throw new KeelError("NOT_FOUND", `Run "${runId}" has no recorded document.`, {
        details: { runId },
        hint: "Only runs started by `keel run <file>` record their document; continue others with `keel run <file> --thread <thread> --respond <json>`.",
      });
    }
    return {
      runId: raw.run_id,
      documentPath: raw.document_path,
      documentId: raw.document_id,
      graphHash: raw.graph_hash,
      input: JSON.parse(raw.input_json) as unknown,
      packsDir: raw.packs_dir,
      nodeKinds: JSON.parse(raw.node_kinds_json) as string[],
      createdAt: toInt(raw.created_at),
    };
  }
}
