import type { BaseStore } from "../../checkpoint/base/index.js";
import type { Store } from "../../store/index.js";
import type { IRDocument, StoreRef } from "../models/index.js";
import type { Problem } from "../problems.js";

/** What a store provider may build a store on. */
export interface StoreBindingContext {
  /** The kernel database of the run (set by the governed runtime and the CLI). */
  kernel?: Store;
}

/** Builds the store a document's `stores` entry binds, for one compiled document. */
export type StoreProvider = (ref: StoreRef, context: StoreBindingContext) => BaseStore;

const registered: Record<string, StoreProvider> = {};

/**
 * Adds store providers every document may bind by id (`stores: [{ name, provider }]`): how a
 * layer above the IR provides its own (the CLI registers the decision memory as `keel.memory`).
 * Providers given to a compile still win.
 *
 * @example
 * registerStoreProviders({ "keel.memory": memoryStoreProvider() });
 */
export function registerStoreProviders(providers: Record<string, StoreProvider>): void {
  Object.assign(registered, providers);
}

/** The registered store providers (what a document may bind without passing any). */
export function registeredStoreProviders(): Readonly<Record<string, StoreProvider>> {
  return { ...registered };
}

/**
 * The stores of a document's `stores` bindings whose provider is offered, by binding name; a
 * provider that fails to build its store is a `store_binding_failed` problem at `/stores/<i>`.
 * Bindings to providers nobody offers are left unbound.
 */
export function bindStores(
  doc: IRDocument,
  providers: Record<string, StoreProvider>,
  context: StoreBindingContext,
  problems: Problem[],
): Record<string, BaseStore> {
  const available = { ...registered, ...providers };
  const stores: Record<string, BaseStore> = {};
  doc.stores.forEach((ref, index) => {
    // A provider nothing offers leaves the binding a name only (its capability strings,
    // `db.<name>:read|write`, still apply): documents bind stores Keel does not host.
    const provider = available[ref.provider];
    if (!provider) return;
    try {
      stores[ref.name] = provider(ref, context);
    } catch (error) {
      problems.push({
        code: "store_binding_failed",
        path: `/stores/${index}`,
        message: `Store "${ref.name}" (provider "${ref.provider}") could not be opened: ${error instanceof Error ? error.message : String(error)}`,
        expected: "a store the provider can open",
        actual: JSON.stringify(ref),
        hint: "Run the document where its provider has what it needs (keel.memory: a kernel database).",
      });
    }
  });
  return stores;
}
