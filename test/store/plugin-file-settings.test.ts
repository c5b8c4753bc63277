/**
 * A plugin switched off only in the config file (`plugins.<id>.enabled: false` in
 * `.keel/catalog.json` or `.skill-map.json`) is off for every module that discovers plugins
 * through the store (job actions, governance packs, migrations), not only for the catalog; the
 * database's `config_plugins` row still wins over the file.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  discoverStorePlugins,
  openStore,
  readPluginFileSettings,
  setPluginEnabled,
} from "../../src/store/index.js";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function scope(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "keel-plugin-settings-"));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const manifest = JSON.stringify({ id: "vault", version: "1.0.0" });

describe("plugin switches from the config file", () => {
  it("reads .keel/catalog.json first, else .skill-map.json, leniently", () => {
    const both = scope({
      ".keel/catalog.json": JSON.stringify({ plugins: { vault: { enabled: false } } }),
      ".skill-map.json": JSON.stringify({ plugins: { vault: { enabled: true } } }),
    });
    expect(readPluginFileSettings(join(both, ".keel"))).toEqual({
      vault: { enabled: false, config: undefined },
    });
    const spec = scope({
      ".skill-map.json": JSON.stringify({
        plugins: { a: { config: { x: 1 } }, b: "on", c: { enabled: "no" } },
      }),
    });
    expect(readPluginFileSettings(join(spec, ".keel"))).toEqual({
      a: { enabled: undefined, config: { x: 1 } },
      c: { enabled: undefined, config: undefined },
    });
    const broken = scope({ ".keel/catalog.json": "{ not json" });
    expect(readPluginFileSettings(join(broken, ".keel"))).toEqual({});
    expect(readPluginFileSettings(join(scope({}), ".keel"))).toEqual({});
  });

  it("a plugin off in the file is disabled for store callers; the database row wins", async () => {
    const root = scope({
      ".keel/plugins/vault/plugin.json": manifest,
      ".keel/catalog.json": JSON.stringify({ plugins: { vault: { enabled: false } } }),
    });
    const store = await openStore({ db: join(root, ".keel/keel.db") });
    try {
      const [off] = await discoverStorePlugins(store);
      expect(off?.status).toBe("disabled");
      await setPluginEnabled(store, "vault", true);
      const [on] = await discoverStorePlugins(store);
      expect(on?.status).toBe("enabled");
    } finally {
      await store.close();
    }
  });
});
