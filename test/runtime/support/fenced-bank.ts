import Database from "better-sqlite3";
import type { ToolCallContext } from "../../../src/runtime/index.js";
import { ToolFailure, ToolRegistry } from "../../../src/runtime/index.js";
import { openSpec } from "./tools.js";

/**
 * An outside system that honours fencing tokens, as a bank's API might: per idempotency key it
 * keeps the largest token it has seen and refuses a payment carrying a smaller or equal one.
 * A SQLite file of its own, shared by the test and its child processes.
 */
export function openBank(path: string): Database.Database {
  const db = new Database(path);
  db.pragma("busy_timeout = 5000");
  db.exec(`CREATE TABLE IF NOT EXISTS fences (key TEXT PRIMARY KEY, fence INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS payments (key TEXT NOT NULL, fence INTEGER NOT NULL, by TEXT NOT NULL)`);
  return db;
}

/** Pays once per key and fence: one transaction that checks the fence, then records both. */
export function pay(bank: Database.Database, key: string, fence: number, by: string): void {
  bank.transaction(() => {
    const seen = bank.prepare("SELECT fence FROM fences WHERE key = ?").get(key) as
      | { fence: number }
      | undefined;
    if (seen && seen.fence >= fence) {
      throw new ToolFailure("STALE_FENCE", `fence ${fence} is stale: ${seen.fence} was seen`, {
        retryable: false,
      });
    }
    bank
      .prepare(
        "INSERT INTO fences (key, fence) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET fence = excluded.fence",
      )
      .run(key, fence);
    bank.prepare("INSERT INTO payments (key, fence, by) VALUES (?, ?, ?)").run(key, fence, by);
  })();
}

export function payments(bank: Database.Database): { key: string; fence: number; by: string }[] {
  return bank.prepare("SELECT key, fence, by FROM payments ORDER BY rowid").all() as {
    key: string;
    fence: number;
    by: string;
  }[];
}

/**
 * A registry with `test.pay`: an external, retry-safe tool (it declares its idempotency key)
 * that pays through the bank with the call's fence. `before` runs first (a child freezes there).
 */
export function bankTools(
  bank: Database.Database,
  by: string,
  before: (context: ToolCallContext) => Promise<void> = async () => {},
): ToolRegistry {
  const tools = new ToolRegistry();
  tools.register(
    openSpec("pay", "external", "pays through a bank that honours fences", {
      idempotency_key: "key",
    }),
    async (_input, context) => {
      await before(context);
      pay(bank, context.idempotencyKey, context.fence, by);
      return { paid: true };
    },
  );
  return tools;
}
