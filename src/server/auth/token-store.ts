import { randomBytes } from "node:crypto";
import type { SqlRunner } from "../../checkpoint/index.js";
import { KeelError, newId, sha256Hex } from "../../core/index.js";
import type { Store } from "../../store/index.js";
import { type Capability, parseCapabilities } from "./capabilities.js";

/** A token as listed: never the secret, which exists only in the answer to `create`. */
export interface TokenInfo {
  id: string;
  name: string;
  capabilities: Capability[];
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
}

interface TokenRow {
  id: string;
  name: string;
  token_hash: string;
  capabilities_json: string;
  created_at: number | string;
  expires_at: number | string | null;
  revoked_at: number | string | null;
}

/** The prefix of every secret, so a leaked one is recognisable (and greppable) as Keel's. */
export const TOKEN_PREFIX = "keel_";

/** The sha256 (hex) a token is stored and looked up by. */
export function tokenHash(secret: string): string {
  return sha256Hex(secret);
}

/**
 * Bearer tokens in `config_api_tokens` (migration 025): created with capabilities and an optional
 * expiry, stored as the sha256 of the secret, revocable.
 *
 * @example
 * const tokens = new TokenStore(store);
 * const { secret } = await tokens.create({ name: "ci", capabilities: ["read", "runs"] });
 * const who = await tokens.verify(secret); // TokenInfo, or null when unknown/expired/revoked
 */
export class TokenStore {
  /**
   * `reads`: a runner of prepared statements on the same database (the server's saver's) for
   * `verify`, which every request makes; without it, the store's query builder.
   */
  constructor(
    private readonly store: Store,
    private readonly reads?: SqlRunner,
  ) {}

  /** Makes a token; the secret is returned here only. */
  async create(input: {
    name: string;
    capabilities: readonly string[];
    expiresAt?: number | null;
  }): Promise<TokenInfo & { secret: string }> {
    const capabilities = parseCapabilities(input.capabilities);
    const now = Date.now();
    if (input.expiresAt != null && input.expiresAt <= now) {
      throw new KeelError("INVALID_ARGUMENT", "The token's expiry is in the past.", {
        hint: "Give --expires a duration such as 30d or 12h.",
      });
    }
    const secret = `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
    const info: TokenInfo = {
      id: newId(),
      name: input.name,
      capabilities,
      createdAt: now,
      expiresAt: input.expiresAt ?? null,
      revokedAt: null,
    };
    await this.store.kysely
      .withTables<{ config_api_tokens: TokenRow }>()
      .insertInto("config_api_tokens")
      .values({
        id: info.id,
        name: info.name,
        token_hash: tokenHash(secret),
        capabilities_json: JSON.stringify(capabilities),
        created_at: now,
        expires_at: info.expiresAt,
        revoked_at: null,
      })
      .execute();
    return { ...info, secret };
  }

  /** Every token, newest first (revoked and expired ones included, marked). */
  async list(): Promise<TokenInfo[]> {
    const rows = await this.db()
      .selectFrom("config_api_tokens")
      .selectAll()
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .execute();
    return rows.map(toInfo);
  }

  /** Revokes a token (TOKEN_NOT_FOUND for an unknown id); revoking twice keeps the first time. */
  async revoke(id: string): Promise<TokenInfo> {
    const now = Date.now();
    await this.db()
      .updateTable("config_api_tokens")
      .set({ revoked_at: now })
      .where("id", "=", id)
      .where("revoked_at", "is", null)
      .execute();
    const row = await this.db()
      .selectFrom("config_api_tokens")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirst();
    if (!row) {
      throw new KeelError("TOKEN_NOT_FOUND", `No token "${id}".`, {
        details: { id },
        hint: "List tokens with `keel tokens list`.",
      });
    }
    return toInfo(row);
  }

  /** The live token a secret belongs to; null when it is unknown, revoked or expired. */
  async verify(secret: string, now = Date.now()): Promise<TokenInfo | null> {
    if (!secret.startsWith(TOKEN_PREFIX) || secret.length > 200) return null;
    const row = this.reads
      ? (
          await this.reads.all<TokenRow>(
            "SELECT id, name, token_hash, capabilities_json, created_at, expires_at, revoked_at FROM config_api_tokens WHERE token_hash = ?",
            [tokenHash(secret)],
          )
        )[0]
      : await this.db()
          .selectFrom("config_api_tokens")
          .selectAll()
          .where("token_hash", "=", tokenHash(secret))
          .executeTakeFirst();
    if (!row) return null;
    const info = toInfo(row);
    if (info.revokedAt !== null) return null;
    if (info.expiresAt !== null && info.expiresAt <= now) return null;
    return info;
  }

  private db() {
    return this.store.kysely.withTables<{ config_api_tokens: TokenRow }>();
  }
}

function toInfo(row: TokenRow): TokenInfo {
  return {
    id: row.id,
    name: row.name,
    capabilities: JSON.parse(row.capabilities_json) as Capability[],
    createdAt: Number(row.created_at),
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  };
}
