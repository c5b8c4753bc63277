/**
 * Token counts made on the worker thread equal the inline ones (one tokenizer, cl100k_base),
 * batch boundaries and empty texts included.
 */
import { describe, expect, it } from "vitest";
import { tokenPool } from "../../src/catalog/scan/token-pool.js";
import { loadTokenCounter } from "../../src/catalog/scan/tokens.js";

describe("token pool", () => {
  it("a worker counts what the inline counter counts, in the order asked", async () => {
    const texts = Array.from({ length: 150 }, (_, i) => [
      i % 7 === 0 ? "" : `name: n${i}\ndescription: Déjà vu ${i}\n`,
      `# Node ${i}\n\nRun /deploy-${i}, ask @lead. 😀 ${"word ".repeat(i % 40)}\n`,
    ]);
    const count = await loadTokenCounter();
    const pool = await tokenPool(texts.length, 1);
    const counts = texts.map(([fm, body]) => pool.count(fm as string, body as string));
    await pool.close();
    expect(pool.where()).toBe("worker");
    expect(await Promise.all(counts)).toEqual(
      texts.map(([fm, body]) => [count(fm as string), count(body as string)]),
    );
    expect((await counts[3])?.[1]).toBeGreaterThan(10);
    const small = await tokenPool(10);
    expect(small.where()).toBe("inline");
    expect(await small.count("", "hello world")).toEqual([0, 2]);
  });
});
