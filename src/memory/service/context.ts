import type { Transaction } from "kysely";
import { type Clock, KeelError, newId, systemClock } from "../../core/index.js";
import { type AuditEntry, AuditWriter, type RuntimeDatabase } from "../../runtime/index.js";
import type { Store } from "../../store/index.js";
import type { TrustBoundary } from "../models/enums.js";
import type { Embedder } from "../search/embedder.js";
import { memoryWriteError } from "../store/db-errors.js";
import { type MemoryDatabase, memoryDb } from "../store/tables.js";

/** Options of a DecisionMemory. */
export interface DecisionMemoryOptions {
  /** Appends the audit events (default: a writer on the same store). */
  audit?: AuditWriter;
  clock?: Clock;
  /** Vectors for search; none by default (full-text only). */
  embedder?: Embedder | null;
  /**
   * `agent_with_intent` (default): agents may record; `human_only`: records from source
   * `agent` are refused.
   */
  trust?: TrustBoundary;
  /** The namespace used when a request names none (default `default`). */
  namespace?: string;
}

/** What every operation shares: the store, the audit writer, the clock, the options. */
export class MemoryContext {
  readonly store: Store;
  readonly audit: AuditWriter;
  readonly clock: Clock;
  readonly embedder: Embedder | null;
  readonly trust: TrustBoundary;
  readonly namespace: string;

  constructor(store: Store, options: DecisionMemoryOptions = {}) {
    this.store = store;
    this.clock = options.clock ?? systemClock;
    this.audit = options.audit ?? new AuditWriter(store, { clock: this.clock });
    this.embedder = options.embedder ?? null;
    this.trust = options.trust ?? "agent_with_intent";
    this.namespace = options.namespace ?? "default";
  }

  get db() {
    return memoryDb(this.store);
  }

  /**
   * Runs a change and its audit events in one transaction: both commit or neither does. The
   * database's own refusals (invariants) become MEMORY_INVARIANT errors.
   */
  async write<T>(
    work: (
      tx: Transaction<MemoryDatabase>,
      audit: (entry: MemoryAuditEntry) => Promise<void>,
    ) => Promise<T>,
  ): Promise<T> {
    const traceId = newId();
    try {
      return await this.store.transaction((kernelTx) => {
        const tx = kernelTx as unknown as Transaction<MemoryDatabase>;
        const audit = async (entry: MemoryAuditEntry) => {
          await this.audit.write(
            traceId,
            { stage: "operator", outcome: "success", ...entry },
            tx as unknown as Transaction<RuntimeDatabase>,
          );
        };
        return work(tx, audit);
      });
    } catch (error) {
      throw memoryWriteError(error) ?? error;
    }
  }

  /** Refuses an agent's write when the trust boundary is `human_only`. */
  checkTrust(source: string): void {
    if (this.trust === "human_only" && source === "agent") {
      throw new KeelError(
        "MEMORY_TRUST",
        "This memory accepts changes from people only (trust boundary human_only); an agent's change was refused.",
        {
          hint: 'Record it as source "user", or open the memory with trust agent_with_intent.',
        },
      );
    }
  }
}

/** An audit entry of a memory change: type `memory.<what>`, a sentence naming the ids. */
export type MemoryAuditEntry = Pick<AuditEntry, "type" | "summary"> & Partial<AuditEntry>;
