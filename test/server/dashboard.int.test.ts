import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadGovernedApp } from "../../src/runtime/index.js";
import { startTestServer, type TestServer } from "./support.js";

const CHROMIUM = "/usr/bin/chromium";
const APP = new URL("../../examples/governed-refund-app.ts", import.meta.url).href;
/** Screenshots of every page of a failed test land here (KEEL_DOCS_SCREENSHOTS=1: docs/server/). */
const SHOTS = process.env.KEEL_DOCS_SCREENSHOTS
  ? fileURLToPath(new URL("../../docs/server/", import.meta.url))
  : join(fileURLToPath(new URL("../../", import.meta.url)), "test-results", "dashboard");

let t: TestServer;
let browser: Browser;
const pages: Page[] = [];

beforeAll(async () => {
  t = await startTestServer();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});
afterEach(async (context) => {
  const failed = context.task.result?.state === "fail";
  if (failed || process.env.KEEL_DOCS_SCREENSHOTS) {
    mkdirSync(SHOTS, { recursive: true });
    for (const [i, page] of pages.entries()) {
      if (page.isClosed()) continue;
      const name = `${context.task.name.replace(/\W+/g, "-")}-${i}.png`;
      await page.screenshot({ path: join(SHOTS, name), fullPage: true }).catch(() => {});
      if (failed) console.error(`screenshot: ${join(SHOTS, name)} (${page.url()})`);
    }
  }
  for (const page of pages.splice(0)) await page.close().catch(() => {});
});

/** A logged-in page (the launch link `keel serve` prints), in a fresh context. */
async function open(
  path: string,
  viewport = { width: 1280, height: 800 },
  colorScheme: "light" | "dark" = "light",
): Promise<Page> {
  const context = await browser.newContext({ viewport, colorScheme });
  const page = await context.newPage();
  pages.push(page);
  await page.goto(`${t.server.url}/login?key=${t.server.launchKey}`);
  await page.goto(`${t.server.url}${path}`);
  return page;
}

describe.skipIf(!existsSync(CHROMIUM))("the dashboard in Chromium", () => {
  it("approves pending approvals and shows the run finish live", async () => {
    const { runtime, graph } = await loadGovernedApp(APP, t.store);
    const started = await runtime.start({
      graph,
      input: { order: "7", amount: 30 },
      autonomy: "A2",
      risk: "high",
      capabilities: ["payments:refund"],
      graphId: "refund-example",
      app: APP,
    });
    expect(started.run.status).toBe("paused");
    const runs = await open("/ui/runs");
    const row = runs.locator(`tr[data-run="${started.run.id}"]`);
    await expect.poll(() => row.locator(".status").textContent()).toBe("paused");

    const approvals = await open("/ui/approvals");
    // Each gated call of the run waits for its own approval: approve until none is pending.
    for (let i = 0; i < 3; i++) {
      const pending = approvals.locator("tr[data-approval]", {
        has: approvals.locator(".status.pending"),
      });
      if ((await pending.count()) === 0) break;
      await pending.first().locator('input[aria-label="reason"]').fill("checked in the browser");
      await pending.first().getByRole("button", { name: "approve" }).click();
      await expect
        .poll(() => approvals.locator(".status.pending").count(), { timeout: 15_000 })
        .toBeLessThan((await pending.count()) + 1);
      await approvals.waitForTimeout(200);
    }
    // The runs page, never reloaded, shows the run finished (pushed over the event channel).
    await expect
      .poll(() => row.locator(".status").textContent(), { timeout: 20_000 })
      .toBe("succeeded");
  }, 60_000);

  it("verifies the audit chain", async () => {
    const page = await open("/ui/audit");
    await page.getByRole("button", { name: "verify chain" }).click();
    await expect
      .poll(() => page.locator("#verify-result").textContent())
      .toMatch(/Audit chain intact: \d+ events checked/);
    expect(await page.locator("#timeline tr").count()).toBeGreaterThan(1);
  }, 30_000);

  it("draws a run's graph with its current node, travels back in its history and forks it", async () => {
    const client = t.client();
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "agent", {
      input: { messages: [{ type: "human", content: "q", id: "h" }] },
    });
    const [run] = await client.runs.list(thread.thread_id);
    const page = await open(`/ui/runs/${run?.run_id}`);
    // Paused at the human's interrupt: that node is the current one.
    await expect
      .poll(() => page.locator("svg.graph g.current").getAttribute("data-node"))
      .toBe("human");
    await expect.poll(() => page.locator("ol.history li").count()).toBeGreaterThan(3);
    const latest = await page.locator("#state-values").textContent();
    // Time travel: the first checkpoint after the input holds one message.
    await page.locator("ol.history li").last().getByRole("button", { name: "view" }).click();
    await expect.poll(() => page.locator("#state-values").textContent()).not.toBe(latest);
    // Fork from the step where the model had answered once, with an edited message list.
    await page.locator("ol.history li").nth(2).getByRole("button", { name: "fork" }).click();
    await page.locator("#fork-values").fill(JSON.stringify({ messages: [], approved: "forked" }));
    await page.locator("#fork-submit").click();
    await page.waitForURL(
      (url) => url.pathname.startsWith("/ui/runs/") && !url.pathname.endsWith(run?.run_id ?? ""),
    );
    await expect
      .poll(() => page.locator("#run-status .status").textContent(), { timeout: 15_000 })
      .toMatch(/paused|succeeded/);
  }, 60_000);

  it("fits a phone in the dark theme", async () => {
    const page = await open("/ui/runs", { width: 390, height: 844 }, "dark");
    await expect.poll(() => page.locator("#runs table").count()).toBe(1);
    const overflow = await page.evaluate<number>(
      "document.documentElement.scrollWidth - window.innerWidth",
    );
    expect(overflow).toBeLessThanOrEqual(1);
    const background = await page.evaluate<string>(
      "getComputedStyle(document.body).backgroundColor",
    );
    expect(background).toBe("rgb(21, 23, 27)");
  }, 30_000);
});
