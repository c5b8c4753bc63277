import type { PluginManifest } from "./manifest.js";

/** A plugin's state after discovery (and, for `enabled`, after loading). */
export type PluginStatus =
  | "enabled"
  | "disabled"
  | "incompatible-spec"
  | "invalid-manifest"
  | "load-error";

/** A plugin found on disk with its resolved status (plugins-registry.schema.json `DiscoveredPlugin`). */
export interface DiscoveredPlugin {
  readonly id: string;
  /** Absolute path of the plugin folder. */
  readonly path: string;
  /** The manifest as read; null when `plugin.json` is missing, not JSON or invalid. */
  readonly manifest: PluginManifest | null;
  status: PluginStatus;
  /** Why, when the status is not `enabled`. */
  statusReason: string | null;
}
