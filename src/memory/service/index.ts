export type { BundleEvent, MemoryBundle } from "./bundle.js";
export type { DecisionMemoryOptions } from "./context.js";
export { DecisionMemory, type ListOptions, type MemoryStats } from "./decision-memory.js";
export { CONTEXT_MARKER, type ContextOptions, type InjectedMemory } from "./inject.js";
export type { MaintenanceReport } from "./maintain.js";
export { namespaceDirectory } from "./markdown.js";
export { type MaintenanceScheduleOptions, runMaintenanceSchedule } from "./schedule.js";
export { FULL_TEXT_SCAN, SEARCH_WINDOW, type SearchHit } from "./search.js";
export type { ProposeInput, RecordedEvent, RecordInput, SupersedeInput } from "./writes.js";
