export { InMemoryStore } from "./memory-store.js";
export {
  BaseStore,
  type Item,
  type ListNamespacesOptions,
  matchesStoreFilter,
  namespaceStartsWith,
  type SearchItem,
  type SearchOptions,
  selectNamespaces,
  validateNamespace,
  validateValue,
} from "./store.js";
