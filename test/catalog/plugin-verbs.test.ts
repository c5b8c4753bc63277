/**
 * `keel plugins list|show|enable|disable|doctor` run in-process through the CLI entry, on real
 * plugins written into a temp scope, with the switches stored in SQLite and in Postgres. The
 * `--json` shapes are checked against the spec package's own schemas (`DiscoveredPlugin`,
 * `PluginsRegistry`). Also: the store's `config_plugins` switch wins over the config file's
 * `plugins.<id>.enabled`, and `plugins.<id>.config` reaches the plugin's extensions (from the
 * file, or from `config_plugins.config_json`), checked against their `configSchema`.
 */
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/index.js";
import { keelInProcess } from "../store/cli-in-process.js";
import { postgresAvailable } from "../support/postgres.js";
import { createMigratedDatabase } from "../support/templates.js";
import { specAjv } from "./conformance-runner.js";
import { makeTree, md } from "./tree.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const manifest = (id: string, extensions: string[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id, version: "2.0.0", specCompat: "^0.1.0", extensions, ...extra });

// A wiki-link detector whose target folder is the plugin's config (`this.config`), declared by
// its configSchema; and a rule made by a factory that reads the config it is called with.
const SCOPE = {
  ".keel/plugins/wiki/plugin.json": manifest("wiki", ["detector.mjs", "rule.mjs"], {
    description: "[[page]] links",
  }),
  ".keel/plugins/wiki/detector.mjs": `export default {
  kind: "detector", id: "wikilink", version: "1.0.0", description: "[[page]] links",
  scope: "body", emitsLinkKinds: ["references"], defaultConfidence: "medium",
  configSchema: {
    type: "object", additionalProperties: false,
    properties: { folder: { type: "string" }, severity: { enum: ["info", "warn"] } },
  },
  detect({ node, body }) {
    const folder = this.config.folder ?? "pages";
    return [...body.matchAll(/\\[\\[([^\\]]+)\\]\\]/g)].map((m) => ({
      source: node.path, target: folder + "/" + m[1] + ".md", kind: "references",
      confidence: "medium", sources: ["wikilink"],
    }));
  },
};`,
  ".keel/plugins/wiki/rule.mjs": `export default ({ pluginId, config }) => ({
  kind: "rule", id: "wiki-count", version: "1.0.0", description: "counts wiki links",
  evaluate: ({ links }) => [{
    ruleId: "wiki-count", severity: config.severity ?? "info", nodeIds: ["notes/a.md"],
    message: pluginId + ": " + links.filter((l) => l.sources.includes("wikilink")).length + " wiki links",
  }],
});`,
  ".keel/plugins/future/plugin.json": manifest("future", ["x.mjs"], { specCompat: "^9.0.0" }),
  ".skill-map/plugins/crashy/plugin.json": manifest("crashy", ["boom.mjs"]),
  ".skill-map/plugins/crashy/boom.mjs": `throw new Error("boom at import");`,
  "notes/a.md": md("a", "See [[b]]."),
};

const writeConfig = (root: string, plugins: Record<string, unknown>) =>
  writeFileSync(join(root, ".keel/catalog.json"), JSON.stringify({ plugins }));

async function dialects(): Promise<{ name: string; db: (root: string) => Promise<string> }[]> {
  const list = [{ name: "sqlite", db: async (root: string) => join(root, ".keel/keel.db") }];
  if (await postgresAvailable()) {
    list.push({
      name: "postgres",
      db: async () => {
        const created = await createMigratedDatabase("plugin_verbs");
        cleanups.push(created.drop);
        return created.url;
      },
    });
  }
  return list;
}

const schema = (name: string) => {
  const validate = specAjv().getSchema(
    `https://skill-map.dev/spec/v0/plugins-registry.schema.json#/$defs/${name}`,
  );
  if (!validate) throw new Error(`the spec package has no ${name}`);
  return validate;
};

for (const dialect of await dialects()) {
  describe(`keel plugins on ${dialect.name}`, () => {
    it("list, show, disable, enable and doctor, with the spec's shapes and exit codes", async () => {
      const root = makeTree(SCOPE, "keel-plugin-verbs-");
      cleanups.push(() => rmSync(root, { recursive: true, force: true }));
      const db = await dialect.db(root);
      const keel = (...args: string[]) => keelInProcess([...args, "--db", db], { cwd: root });
      const links = async () => {
        const scan = await keel("scan", "--json");
        const result = JSON.parse(scan.stdout) as {
          links: { target: string; sources: string[] }[];
          issues: { ruleId: string; severity: string; message: string }[];
        };
        return {
          wiki: result.links.filter((l) => l.sources.includes("wikilink")).map((l) => l.target),
          count: result.issues.find((i) => i.ruleId === "wiki-count"),
        };
      };

      // The spec's own command line: SKILL_MAP_JSON=1 is --json.
      const list = await keelInProcess(["plugins", "list", "--db", db], {
        cwd: root,
        env: { SKILL_MAP_JSON: "1" },
      });
      expect(list.exitCode, list.stderr).toBe(0);
      const listed = JSON.parse(list.stdout) as { id: string; status: string; manifest: unknown }[];
      expect(listed.map((p) => [p.id, p.status])).toEqual([
        ["crashy", "load-error"],
        ["future", "incompatible-spec"],
        ["wiki", "enabled"],
      ]);
      const discovered = schema("DiscoveredPlugin");
      for (const plugin of listed) expect(discovered(plugin), plugin.id).toBe(true);
      expect(JSON.stringify(listed)).toContain("boom at import");

      const show = await keel("plugins", "show", "wiki", "--json");
      expect(show.exitCode, show.stderr).toBe(0);
      expect(show.json).toMatchObject({
        id: "wiki",
        status: "enabled",
        manifest: { id: "wiki", version: "2.0.0", description: "[[page]] links" },
        compat: { specCompat: "^0.1.0", specVersion: "0.1.0", satisfied: true },
        enabledFrom: "default",
        config: {},
        extensions: [
          { kind: "detector", id: "wikilink", version: "1.0.0", description: "[[page]] links" },
          { kind: "rule", id: "wiki-count", version: "1.0.0", description: "counts wiki links" },
        ],
      });
      const future = await keel("plugins", "show", "future", "--json");
      expect(future.json.compat).toMatchObject({ specCompat: "^9.0.0", satisfied: false });
      const missing = await keel("plugins", "show", "nope", "--json");
      expect(missing.exitCode).toBe(5);
      expect(missing.json).toMatchObject({ ok: false, error: { code: "PLUGIN_NOT_FOUND" } });
      expect((await keel("plugins", "disable", "nope")).exitCode).toBe(5);

      expect((await links()).wiki).toEqual(["pages/b.md"]);

      // The database's switch wins over the config file's, both ways.
      writeConfig(root, { wiki: { enabled: true } });
      const off = await keel("plugins", "disable", "wiki", "--json");
      expect(off.exitCode, off.stderr).toBe(0);
      expect(off.json).toMatchObject({ ok: true, id: "wiki", enabled: false, status: "disabled" });
      expect(await links()).toEqual({ wiki: [], count: undefined });
      const human = await keel("plugins", "list");
      expect(human.stdout).toMatch(/wiki\s+2\.0\.0\s+disabled\s+disabled by the user/);
      const shownOff = await keel("plugins", "show", "wiki", "--json");
      expect(shownOff.json).toMatchObject({ status: "disabled", enabledFrom: "database" });

      writeConfig(root, { wiki: { enabled: false } });
      const on = await keel("plugins", "enable", "wiki");
      expect(on.exitCode, on.stderr).toBe(0);
      expect(on.stdout).toContain("plugin wiki enabled");
      expect((await links()).wiki).toEqual(["pages/b.md"]);

      // Enabling does not make an incompatible plugin usable; it says why.
      const stillFuture = await keel("plugins", "enable", "future");
      expect(stillFuture.exitCode).toBe(0);
      expect(stillFuture.stdout).toMatch(/enabled, but it is incompatible-spec/);

      // doctor: the spec's PluginsRegistry; exit 1 while a plugin cannot be used.
      const doctor = await keel("plugins", "doctor", "--json");
      expect(doctor.exitCode).toBe(1);
      expect(schema("PluginsRegistry")(doctor.json), JSON.stringify(doctor.json)).toBe(true);
      expect(doctor.json.schemaVersion).toBe(1);
      await keel("plugins", "disable", "future");
      await keel("plugins", "disable", "crashy");
      const clean = await keel("plugins", "doctor");
      expect(clean.exitCode, clean.stdout).toBe(0);
      expect(clean.stdout).toContain("3 plugin(s), none broken");

      // The switches are rows of config_plugins in the database the verbs were given.
      const store = await openStore({ db });
      try {
        const rows = await store.kysely
          .selectFrom("config_plugins")
          .select(["plugin_id", "enabled"])
          .orderBy("plugin_id")
          .execute();
        expect(rows.map((r) => [r.plugin_id, Number(r.enabled)])).toEqual([
          ["crashy", 0],
          ["future", 0],
          ["wiki", 1],
        ]);
      } finally {
        await store.close();
      }
    });

    it("plugins.<id>.config reaches the extensions; config_json wins; a bad config is every problem", async () => {
      const root = makeTree(SCOPE, "keel-plugin-config-");
      cleanups.push(() => rmSync(root, { recursive: true, force: true }));
      const db = await dialect.db(root);
      const keel = (...args: string[]) => keelInProcess([...args, "--db", db], { cwd: root });
      const scan = async (...flags: string[]) => {
        const run = await keel("scan", "--json", ...flags);
        const result = JSON.parse(run.stdout) as {
          links: { target: string; sources: string[] }[];
          issues: { ruleId: string; severity: string; message: string }[];
        };
        return {
          wiki: result.links.filter((l) => l.sources.includes("wikilink")).map((l) => l.target),
          count: result.issues.find((i) => i.ruleId === "wiki-count"),
        };
      };

      writeConfig(root, { wiki: { config: { folder: "vault", severity: "warn" } } });
      const first = await scan();
      expect(first.wiki).toEqual(["vault/b.md"]);
      expect(first.count).toMatchObject({ severity: "warn", message: "wiki: 1 wiki links" });
      const shown = await keel("plugins", "show", "wiki", "--json");
      expect(shown.json).toMatchObject({
        config: { folder: "vault", severity: "warn" },
        configFrom: "config",
      });

      // A changed config changes what the extensions find: --changed re-reads every file.
      writeConfig(root, { wiki: { config: { folder: "wiki" } } });
      expect((await scan("--changed")).wiki).toEqual(["wiki/b.md"]);

      // config_plugins.config_json (no verb writes it) replaces the file's config.
      const store = await openStore({ db });
      try {
        await store.kysely
          .insertInto("config_plugins")
          .values({
            plugin_id: "wiki",
            enabled: 1,
            config_json: JSON.stringify({ folder: "db" }),
            updated_at: Date.now(),
          })
          .execute();
      } finally {
        await store.close();
      }
      expect((await scan()).wiki).toEqual(["db/b.md"]);
      expect((await keel("plugins", "show", "wiki", "--json")).json).toMatchObject({
        config: { folder: "db" },
        configFrom: "database",
        enabledFrom: "database",
      });

      // Every problem of a config against the declared schema; the plugin registers nothing.
      const again = await openStore({ db });
      try {
        await again.kysely
          .updateTable("config_plugins")
          .set({ config_json: JSON.stringify({ folder: 3, colour: "red", severity: "loud" }) })
          .where("plugin_id", "=", "wiki")
          .execute();
      } finally {
        await again.close();
      }
      const bad = await keel("scan", "--json");
      expect(bad.exitCode, bad.stderr).toBe(0);
      expect(bad.stderr).toMatch(
        /plugin wiki not loaded \(load-error\): plugins\.wiki\.config is invalid/,
      );
      const doctor = await keel("plugins", "doctor", "--json");
      const wiki = (
        doctor.json.plugins as { id: string; status: string; statusReason: string }[]
      ).find((p) => p.id === "wiki");
      expect(wiki?.status).toBe("load-error");
      expect(wiki?.statusReason).toContain("/folder: ");
      expect(wiki?.statusReason).toContain('/colour: Unknown key "colour"');
      expect(wiki?.statusReason).toContain("/severity: ");
      expect((JSON.parse(bad.stdout) as { links: { sources: string[] }[] }).links).toEqual([]);
    });
  });
}
