import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { builtInRegistry, scanScope } from "../../src/catalog/index.js";
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
  t = await startTestServer({ project: true });
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

  it("opens a node of the catalog graph in the inspector", async () => {
    const files: Record<string, string> = {
      ".claude/skills/deploy/SKILL.md":
        "---\nname: deploy\ndescription: Ship the service.\n---\nRun /review first, then /vanish.\n",
      ".claude/commands/review.md":
        "---\nname: review\ndescription: Review a change.\n---\nRead the diff.\n",
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(t.dir, path, ".."), { recursive: true });
      writeFileSync(join(t.dir, path), text);
    }
    await scanScope(t.store, { root: t.dir, registry: builtInRegistry() });
    const page = await open("/ui/catalog");
    const skill = page.locator('svg.graph g.node[data-node=".claude/skills/deploy/SKILL.md"]');
    await skill.click();
    await expect
      .poll(() => page.locator("#inspected").textContent())
      .toBe(".claude/skills/deploy/SKILL.md");
    expect(await page.locator("#links-out li").allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining("/review")]),
    );
    // The link to /vanish lands on no node: drawn apart and reported as an issue of the skill.
    expect(await page.locator('svg.graph g.external[data-node="/vanish"]').count()).toBe(1);
    expect(await page.locator("#node-issues li").first().textContent()).toContain("broken-ref");
    // The keyboard opens a node too, and the choice is kept in the address.
    await page.locator('svg.graph g.node[data-node=".claude/commands/review.md"]').focus();
    await page.keyboard.press("Enter");
    await expect
      .poll(() => page.locator("#inspected").textContent())
      .toBe(".claude/commands/review.md");
    expect(new URL(page.url()).searchParams.get("node")).toBe(".claude/commands/review.md");
    // The skill's /review lands on this command (by its name): a link in.
    expect(await page.locator("#links-in li").allTextContents()).toEqual([
      expect.stringContaining(".claude/skills/deploy/SKILL.md (/review)"),
    ]);
  }, 30_000);

  it("shows the job queue live and cancels a job", async () => {
    const page = await open("/ui/jobs");
    await expect.poll(() => page.locator("#jobs").textContent()).toContain("empty");
    const submitted = await fetch(`${t.server.url}/api/jobs`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.tokens.jobs}`, "content-type": "application/json" },
      body: JSON.stringify({ action: "skill-summarizer", node: ".claude/skills/deploy/SKILL.md" }),
    });
    const { job } = (await submitted.json()) as { job: { id: string } };
    // The queued job appears without a reload (job.queued on the event channel).
    const row = page.locator(`tr[data-job="${job.id}"]`);
    await expect.poll(() => row.locator(".status").textContent()).toBe("queued");
    await row.getByRole("button", { name: "cancel" }).click();
    await expect.poll(() => row.locator(".status").textContent()).toBe("failed");
    expect(await row.textContent()).toContain("user-cancelled");
  }, 30_000);

  it("searches the decision memory and opens a decision", async () => {
    const post = (path: string, body: unknown) =>
      fetch(`${t.server.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.tokens.admin}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      }).then((r) => r.json() as Promise<{ record: { id: string } }>);
    const first = await post("/api/memory", {
      title: "Queue refunds through the ledger",
      target: "refund-path",
      rationale: "Every refund must be idempotent and audited.",
    });
    await post("/api/memory/supersede", {
      title: "Refunds go through the ledger with approval",
      target: "refund-path",
      rationale: "High amounts need a person to approve them first.",
      old_decision_ids: [first.record.id],
    });
    const page = await open("/ui/memory");
    await page.locator("#memory-query").fill("refunds ledger");
    await page.getByRole("button", { name: "search" }).click();
    const hit = page.locator("#memory-hits tr[data-record]").first();
    await expect.poll(() => hit.locator(".status").textContent()).toBe("active");
    await hit.getByRole("link").click();
    await expect
      .poll(() => page.locator("#memory-record").textContent())
      .toContain(first.record.id);
    // The audit mode shows the superseded decision itself.
    await page.locator("#memory-mode").selectOption("audit");
    await page.getByRole("button", { name: "search" }).click();
    await expect
      .poll(() => page.locator("#memory-hits .status.superseded").count())
      .toBeGreaterThan(0);
  }, 30_000);

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
