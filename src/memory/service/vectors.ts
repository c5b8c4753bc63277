import type { Transaction } from "kysely";
import type { MemoryDatabase } from "../store/tables.js";
import type { MemoryContext } from "./context.js";

/** Stores (or replaces) a record's vector under the embedder's model name. */
export async function storeVector(
  tx: Transaction<MemoryDatabase>,
  ctx: MemoryContext,
  id: string,
  vector: readonly number[],
): Promise<void> {
  const row = {
    memory_record_id: id,
    model: ctx.embedder?.model ?? "unknown",
    dimension_count: vector.length,
    vector_json: JSON.stringify(vector),
    created_at: ctx.clock.now(),
  };
  await tx
    .insertInto("state_memory_vectors")
    .values(row)
    .onConflict((oc) => oc.column("memory_record_id").doUpdateSet(row))
    .execute();
}
