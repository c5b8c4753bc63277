import { type DurableSaver, PostgresSaver, SqliteSaver } from "../../checkpoint/index.js";
import type { Store } from "../../store/index.js";

/** The durable saver of the store's dialect. */
export function saverFor(store: Store): DurableSaver {
  return store.dialect === "sqlite" ? SqliteSaver.fromStore(store) : PostgresSaver.fromStore(store);
}
