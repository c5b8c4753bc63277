import type { Command } from "commander";
import { KeelError } from "../../core/index.js";
import { ROUTE_CAPABILITIES, TokenStore } from "../../server/index.js";
import type { CliModule } from "../command.js";
import { printResult, reportError, table } from "../output.js";
import { type StoreCliOptions, withStoreOptions } from "../scope.js";
import { humanTime } from "../when.js";
import { withRuntimeStore } from "./runtime-cli.js";

interface CreateFlags extends StoreCliOptions {
  capability: string[];
  expires?: string;
  name?: string;
}

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** "30d", "12h", "90m" → milliseconds. */
function duration(text: string): number {
  const match = /^(\d+)(m|h|d)$/.exec(text.trim());
  if (!match || Number(match[1]) === 0) {
    throw new KeelError("INVALID_ARGUMENT", `--expires "${text}" is not a duration.`, {
      hint: "Use minutes, hours or days: 90m, 12h, 30d.",
    });
  }
  return Number(match[1]) * (UNITS[match[2] ?? "d"] ?? 0);
}

/** `keel tokens create|list|revoke`: bearer tokens for `keel serve`, stored hashed. */
export const tokensCommands: CliModule = {
  register(program: Command): void {
    const tokens = program
      .command("tokens")
      .description("Bearer tokens for keel serve: capabilities, expiry, revocation.");

    withStoreOptions(
      tokens
        .command("create")
        .description("Create a token; its secret is printed once and stored only as a hash.")
        .requiredOption(
          "--capability <name...>",
          `what it may do: ${ROUTE_CAPABILITIES.join(", ")}, or approve:<tool>`,
        )
        .option("--expires <duration>", "expire after 90m, 12h, 30d, …")
        .option("--name <name>", "a label for people (default: the capabilities)"),
    ).action((flags: CreateFlags) =>
      withRuntimeStore(flags, async (store, _audit, options) => {
        const token = await new TokenStore(store).create({
          name: flags.name ?? flags.capability.join("+"),
          capabilities: flags.capability,
          expiresAt: flags.expires === undefined ? null : Date.now() + duration(flags.expires),
        });
        printResult(options, { ok: true, token }, () =>
          [
            `token ${token.id} (${token.capabilities.join(", ")})${token.expiresAt ? ` expires ${new Date(token.expiresAt).toISOString()}` : ""}`,
            `secret (shown once): ${token.secret}`,
          ].join("\n"),
        );
      }).catch((error: unknown) => reportError(flags, error)),
    );

    withStoreOptions(
      tokens.command("list").description("Tokens, newest first (never their secrets)."),
    ).action((flags: StoreCliOptions) =>
      withRuntimeStore(flags, async (store, _audit, options) => {
        const list = await new TokenStore(store).list();
        const now = Date.now();
        const state = (t: (typeof list)[number]) =>
          t.revokedAt !== null
            ? "revoked"
            : t.expiresAt !== null && t.expiresAt <= now
              ? "expired"
              : "live";
        printResult(
          options,
          { ok: true, tokens: list.map((t) => ({ ...t, state: state(t) })) },
          () =>
            list.length === 0
              ? "no tokens"
              : table(
                  ["token", "name", "capabilities", "state", "expires"],
                  list.map((t) => [
                    t.id,
                    t.name,
                    t.capabilities.join(","),
                    state(t),
                    humanTime(t.expiresAt),
                  ]),
                ),
        );
      }).catch((error: unknown) => reportError(flags, error)),
    );

    withStoreOptions(
      tokens.command("revoke <id>").description("Revoke a token: it stops working at once."),
    ).action((id: string, flags: StoreCliOptions) =>
      withRuntimeStore(flags, async (store, _audit, options) => {
        const token = await new TokenStore(store).revoke(id);
        printResult(options, { ok: true, token }, () => `revoked ${token.id} (${token.name})`);
      }).catch((error: unknown) => reportError(flags, error)),
    );
  },
};
