import { canonicalJson, KeelError, sha256Hex } from "../core/index.js";
import type { Adapter, Detector, Extension, ExtensionKind, Renderer, Rule } from "./extensions.js";

/** Which kinds to leave out (the conformance suite's `disableAll*` switches). */
export interface DisabledKinds {
  adapters?: boolean;
  detectors?: boolean;
  rules?: boolean;
}

/**
 * The kernel's extension registry. Built-ins register here exactly as plugins do; the scan asks
 * the registry, never a concrete extension.
 *
 * @example
 * const registry = new ExtensionRegistry();
 * registry.register(myDetector);
 * registry.detectors(); // [myDetector]
 */
export class ExtensionRegistry {
  readonly #byKind: Record<ExtensionKind, Extension[]> = {
    adapter: [],
    detector: [],
    rule: [],
    renderer: [],
  };
  #disabled: DisabledKinds = {};
  #adapterOrder: readonly string[] | null = null;

  /** Adds an extension; a second one of the same kind and id is refused. */
  register(extension: Extension): this {
    const list = this.#byKind[extension.kind];
    if (list === undefined) {
      throw new KeelError(
        "CATALOG_EXTENSION_INVALID",
        `Unknown extension kind "${String((extension as { kind: unknown }).kind)}".`,
        { hint: "An extension's kind is adapter, detector, rule or renderer." },
      );
    }
    if (list.some((existing) => existing.id === extension.id)) {
      throw new KeelError(
        "CATALOG_EXTENSION_INVALID",
        `A ${extension.kind} with id "${extension.id}" is already registered.`,
        { hint: "Give the plugin's extension another id, or disable the plugin it clashes with." },
      );
    }
    list.push(extension);
    return this;
  }

  /** Turns whole kinds off (adapters off: nothing is a node; rules off: no issues). */
  disable(kinds: DisabledKinds): this {
    this.#disabled = { ...this.#disabled, ...kinds };
    return this;
  }

  /**
   * The config's `adapters`: only these adapters classify files, in this order (the first that
   * claims a file wins). An empty list means every registered adapter, in registration order.
   * An id no registered adapter has is refused.
   */
  selectAdapters(ids: readonly string[]): this {
    const known = (this.#byKind.adapter as Adapter[]).map((a) => a.id);
    const unknown = ids.filter((id) => !known.includes(id));
    if (unknown.length > 0) {
      throw new KeelError(
        "CATALOG_CONFIG_INVALID",
        `The config's adapters name ${unknown.map((id) => `"${id}"`).join(", ")}, which no registered adapter has.`,
        {
          hint: `Use the ids of registered adapters (${known.join(", ")}), or check that the plugin providing it loads (keel scan names the plugins it could not load).`,
          details: { unknown, known },
        },
      );
    }
    this.#adapterOrder = ids.length > 0 ? [...new Set(ids)] : null;
    return this;
  }

  adapters(): readonly Adapter[] {
    if (this.#disabled.adapters) return [];
    const all = this.#byKind.adapter as Adapter[];
    const order = this.#adapterOrder;
    if (!order) return all;
    return order.map((id) => all.find((a) => a.id === id)).filter((a) => a !== undefined);
  }
  detectors(): readonly Detector[] {
    return this.#disabled.detectors ? [] : (this.#byKind.detector as Detector[]);
  }
  rules(): readonly Rule[] {
    return this.#disabled.rules ? [] : (this.#byKind.rule as Rule[]);
  }
  renderers(): readonly Renderer[] {
    return this.#byKind.renderer as Renderer[];
  }

  /** Every registered extension, enabled or not (for `keel plugins` / help). */
  all(): readonly Extension[] {
    return [
      ...this.#byKind.adapter,
      ...this.#byKind.detector,
      ...this.#byKind.rule,
      ...this.#byKind.renderer,
    ];
  }

  /**
   * A fingerprint of what a scan would run: ids and versions of the enabled adapters, detectors
   * and rules, and a hash of each one's plugin config when it has one (a config can change what
   * it finds). `--changed` reuses a stored node only when this is unchanged.
   */
  fingerprint(): string {
    const configHash = (e: Extension) =>
      e.config && Object.keys(e.config).length > 0
        ? `#${sha256Hex(canonicalJson(e.config)).slice(0, 16)}`
        : "";
    const part = (list: readonly Extension[]) =>
      list.map((e) => `${e.id}@${e.version}${configHash(e)}`).join(",");
    return [part(this.adapters()), part(this.detectors()), part(this.rules())].join("|");
  }
}
