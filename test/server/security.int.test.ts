import { connect } from "node:net";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { searchAudit } from "../../src/runtime/index.js";
import { TokenStore } from "../../src/server/auth/token-store.js";
import { startServer } from "../../src/server/index.js";
import { startTestServer, type TestServer } from "./support.js";

const silent = pino({ level: "silent" });
let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({
    extra: { headersTimeoutMs: 300, requestTimeoutMs: 600, maxBodyBytes: 64 * 1024 },
  });
});
afterAll(async () => {
  await t?.close();
});

async function call(
  method: string,
  path: string,
  init: { token?: string; body?: string; headers?: Record<string, string> } = {},
) {
  const response = await fetch(`${t.server.url}${path}`, {
    method,
    headers: {
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
      ...init.headers,
    },
    ...(init.body !== undefined ? { body: init.body } : {}),
    redirect: "manual",
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text ? (JSON.parse(text) as { ok?: boolean; error?: { code: string } }) : null,
    headers: response.headers,
  };
}

/** Every declared route. */
function routes() {
  return t.server.routes;
}

describe("access control", () => {
  it("refuses every non-public route without a token (401) and audits the refusal", async () => {
    const table = routes();
    expect(table.length).toBeGreaterThan(30);
    for (const route of table.filter((r) => r.capability !== "public")) {
      const path = route.path.replace(/\{[a-z_]+\}/g, "x1");
      const res = await call(
        route.method.toUpperCase(),
        path,
        route.method === "get" ? {} : { body: "{}" },
      );
      expect([res.status, route.path, res.body?.error?.code]).toEqual([
        401,
        route.path,
        "UNAUTHENTICATED",
      ]);
    }
    const denied = await searchAudit(t.store, { type: "access.denied", limit: 500 });
    expect(denied.length).toBeGreaterThanOrEqual(
      table.filter((r) => r.capability !== "public").length,
    );
  });

  it("refuses a token without the route's capability (403), revoked and expired tokens (401)", async () => {
    const store = new TokenStore(t.store);
    const approveOnly = (
      await store.create({ name: "approve-deploy", capabilities: ["approve:ops.deploy"] })
    ).secret;
    for (const route of routes().filter((r) => r.capability !== "public")) {
      const path = route.path.replace(/\{[a-z_]+\}/g, "x1");
      // A read-only token may not change anything; a token that only approves may not read.
      const token =
        route.capability === "read" || route.capability === "approve"
          ? route.capability === "read"
            ? approveOnly
            : t.tokens.read
          : t.tokens.read;
      const res = await call(route.method.toUpperCase(), path, {
        token,
        ...(route.method === "get" ? {} : { body: "{}" }),
      });
      expect([res.status, route.path, res.body?.error?.code]).toEqual([
        403,
        route.path,
        "CAPABILITY_MISSING",
      ]);
    }
    const revoked = await store.create({ name: "gone", capabilities: ["read"] });
    expect((await call("GET", "/api/runs", { token: revoked.secret })).status).toBe(200);
    await store.revoke(revoked.id);
    expect((await call("GET", "/api/runs", { token: revoked.secret })).status).toBe(401);
    const expiring = await store.create({
      name: "brief",
      capabilities: ["read"],
      expiresAt: Date.now() + 150,
    });
    await new Promise((r) => setTimeout(r, 200));
    expect((await call("GET", "/api/runs", { token: expiring.secret })).status).toBe(401);
    // The SDK's header works like a bearer token.
    expect(
      (await call("GET", "/api/runs", { headers: { "x-api-key": t.tokens.read } })).status,
    ).toBe(200);
  });

  it("lets an approve:<tool> token past the approvals route (the approval's tool is checked next)", async () => {
    const res = await call("POST", "/api/approvals/00000000-0000-7000-8000-000000000000/approve", {
      token: (
        await new TokenStore(t.store).create({ name: "a", capabilities: ["approve:ops.deploy"] })
      ).secret,
      body: "{}",
    });
    expect([res.status, res.body?.error?.code]).toEqual([404, "APPROVAL_NOT_FOUND"]);
  });
});

describe("the dashboard's forms", () => {
  async function session(): Promise<{ cookie: string; csrf: string }> {
    const login = await fetch(`${t.server.url}/login?key=${t.server.launchKey}`, {
      redirect: "manual",
    });
    expect(login.status).toBe(303);
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    expect(login.headers.get("set-cookie")).toMatch(/HttpOnly/i);
    expect(login.headers.get("set-cookie")).toMatch(/SameSite=Strict/i);
    const page = await (await fetch(`${t.server.url}/ui/runs`, { headers: { cookie } })).text();
    const csrf = /name="csrf" content="([^"]+)"/.exec(page)?.[1] ?? "";
    expect(csrf).not.toBe("");
    return { cookie, csrf };
  }

  it("refuses a state change from a session without its CSRF token or from another origin", async () => {
    const { cookie, csrf } = await session();
    const body = JSON.stringify({ metadata: { via: "dashboard" } });
    const without = await call("POST", "/threads", { headers: { cookie }, body });
    expect([without.status, without.body?.error?.code]).toEqual([403, "CSRF_REJECTED"]);
    const wrong = await call("POST", "/threads", {
      headers: { cookie, "x-csrf-token": "forged" },
      body,
    });
    expect(wrong.status).toBe(403);
    const foreign = await call("POST", "/threads", {
      headers: { cookie, "x-csrf-token": csrf, origin: "http://evil.example" },
      body,
    });
    expect(foreign.status).toBe(403);
    const good = await call("POST", "/threads", {
      headers: { cookie, "x-csrf-token": csrf },
      body,
    });
    expect(good.status).toBe(200);
    // Reads need no CSRF token; a logout form carries it in its body.
    expect((await call("GET", "/api/runs", { headers: { cookie } })).status).toBe(200);
    const logout = await fetch(`${t.server.url}/logout`, {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
      body: "_csrf=forged",
      redirect: "manual",
    });
    expect(logout.status).toBe(403);
  });

  it("sends pages without a session to the login page, which refuses a bad token", async () => {
    const page = await fetch(`${t.server.url}/ui/approvals`, { redirect: "manual" });
    expect([page.status, page.headers.get("location")]).toEqual([302, "/login"]);
    const bad = await fetch(`${t.server.url}/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "token=keel_nope",
      redirect: "manual",
    });
    expect(bad.status).toBe(401);
    const policy = (await fetch(`${t.server.url}/login`)).headers.get("content-security-policy");
    expect(policy).toContain("default-src 'self'");
  });
});

describe("hostile input", () => {
  it("refuses ids that climb paths, and serves only the dashboard's own assets", async () => {
    for (const id of ["..", "%2E%2E", "..%2F..%2Fpackage.json", "a%2Fb", ".hidden", "%00x"]) {
      const res = await call("GET", `/threads/${id}/state`, { token: t.tokens.read });
      // 400: refused as an id; 404: the client's URL parser already folded the dots away.
      expect([400, 404]).toContain(res.status);
      expect(res.body?.ok).toBe(false);
    }
    expect((await call("GET", "/threads/..%2F..%2Fx", { token: t.tokens.read })).status).toBe(400);
    expect((await fetch(`${t.server.url}/ui/assets/..%2F..%2F..%2Fpackage.json`)).status).toBe(404);
    expect((await fetch(`${t.server.url}/ui/assets/routes.ts`)).status).toBe(404);
    expect((await fetch(`${t.server.url}/ui/assets/dashboard.js`)).status).toBe(200);
  });

  it("answers an oversize body with 413 before reading it all", async () => {
    const big = JSON.stringify({ metadata: { blob: "x".repeat(200 * 1024) } });
    const res = await call("POST", "/threads", { token: t.tokens.runs, body: big });
    expect([res.status, res.body?.error?.code]).toEqual([413, "PAYLOAD_TOO_LARGE"]);
  });

  it("counts a chunked body (no Content-Length) as it streams: 413 past the limit", async () => {
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(t.server.port, "127.0.0.1");
      let text = "";
      socket.on("data", (chunk) => {
        text += chunk.toString();
        if (text.includes("PAYLOAD_TOO_LARGE")) socket.destroy();
      });
      socket.on("close", () => resolve(text));
      socket.on("error", () => resolve(text));
      socket.write(
        `POST /threads HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${t.tokens.runs}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      );
      const chunk = "x".repeat(16 * 1024);
      for (let i = 0; i < 6; i++) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      socket.write("0\r\n\r\n");
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    expect(answer).toContain("PAYLOAD_TOO_LARGE");
  });

  it("drops a client that sends its headers too slowly", async () => {
    const started = Date.now();
    const closed = await new Promise<string>((resolve) => {
      const socket = connect(t.server.port, "127.0.0.1");
      let answer = "";
      socket.on("data", (chunk) => {
        answer += chunk.toString();
      });
      socket.on("close", () => resolve(answer));
      socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n");
      // …and never finishes the headers.
    });
    expect(closed).toMatch(/^HTTP\/1\.1 408/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("answers errors in one shape with the status of their code", async () => {
    const missing = await call("GET", "/nope", { token: t.tokens.read });
    expect([missing.status, missing.body]).toEqual([
      404,
      { ok: false, error: { code: "NOT_FOUND", message: expect.any(String), details: {} } },
    ]);
    const invalid = await call("POST", "/threads/search", {
      token: t.tokens.read,
      body: JSON.stringify({ limit: -1 }),
    });
    expect([invalid.status, invalid.body?.error?.code]).toEqual([422, "VALIDATION_FAILED"]);
    const notJson = await call("POST", "/threads/search", { token: t.tokens.read, body: "{" });
    expect(notJson.status).toBe(400);
  });
});

describe("binding", () => {
  it("never binds a non-loopback address unless asked with --host", async () => {
    await expect(
      startServer({ store: t.store, host: "0.0.0.0", port: 0, logger: silent }),
    ).rejects.toMatchObject({
      code: "SERVER_BIND_REFUSED",
    });
    const open = await startServer({
      store: t.store,
      host: "0.0.0.0",
      hostExplicit: true,
      port: 0,
    });
    expect(open.host).toBe("0.0.0.0");
    await open.close();
  });

  it("serves the probes and the OpenAPI document without a token", async () => {
    expect((await call("GET", "/healthz")).status).toBe(200);
    expect((await call("GET", "/readyz")).body).toMatchObject({
      ok: true,
      dialect: "sqlite",
      assistants: 5,
    });
    const doc = (await call("GET", "/openapi.json")).body as unknown as {
      openapi: string;
      paths: Record<string, Record<string, { "x-keel-capability": string }>>;
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.paths["/threads/{thread_id}/runs/stream"]?.post?.["x-keel-capability"]).toBe("runs");
    expect(doc.paths["/api/approvals/{approval_id}/approve"]?.post?.["x-keel-capability"]).toBe(
      "approve",
    );
  });
});
