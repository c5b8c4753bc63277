import { describe, expect, it } from "vitest";
import type { Clock } from "../../src/core/index.js";
import {
  type NormalizeOptions,
  normalizeInput,
  validateContract,
} from "../../src/runtime/index.js";

const NOW = Date.parse("2026-03-01T09:30:00.000Z");
const clock: Clock = { now: () => NOW };

function counterIds(): () => string {
  let n = 0;
  return () => `0192f5e0-7c1a-7000-8000-${(++n).toString().padStart(12, "0")}`;
}

function options(extra: Partial<NormalizeOptions> = {}): NormalizeOptions {
  return { clock, newId: counterIds(), ...extra };
}

function ok<T>(result: { ok: true; value: T } | { ok: false; problems: unknown[] }): T {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.problems)}`);
  return result.value;
}

describe("ingestion normaliser", () => {
  it("turns a webhook body into a valid MessageEvent with ids, times and a trace", () => {
    const event = ok(
      normalizeInput(
        {
          kind: "webhook",
          connectorId: "github",
          body: { text: "deploy api", ref: "main" },
          headers: { "Webhook-Id": "msg_1", "webhook-timestamp": "1772357000" },
        },
        options(),
      ),
    );
    expect(event.event_id).toBe("0192f5e0-7c1a-7000-8000-000000000001");
    expect(event.correlation.trace_id).toBe("0192f5e0-7c1a-7000-8000-000000000002");
    expect(event.ingested_at).toBe("2026-03-01T09:30:00.000Z");
    expect(event.occurred_at).toBe(new Date(1772357000 * 1000).toISOString());
    expect(event.source).toEqual({
      channel: "webhook",
      connector_id: "github",
      thread_id: null,
      message_id: "msg_1",
    });
    expect(event.content.text).toBe("deploy api");
    expect(event.content.structured).toEqual({ text: "deploy api", ref: "main" });
    expect(event.actor).toEqual({ actor_type: "integration", actor_id: "github" });
    expect(event.correlation.dedupe_key).toMatch(/^[0-9a-f]{64}$/);
    expect(validateContract("MessageEvent", event).ok).toBe(true);
  });

  it("gives a redelivery the same dedupe key and a new event and trace", () => {
    const delivery = {
      kind: "webhook" as const,
      connectorId: "github",
      body: { text: "deploy api" },
      headers: { "x-github-delivery": "d-42" },
    };
    const first = ok(normalizeInput(delivery, options()));
    const later = ok(
      normalizeInput(
        { ...delivery, body: { text: "deploy api", retried: true } },
        { clock: { now: () => NOW + 60_000 } },
      ),
    );
    expect(later.correlation.dedupe_key).toBe(first.correlation.dedupe_key);
    expect(later.event_id).not.toBe(first.event_id);
    expect(later.correlation.trace_id).not.toBe(first.correlation.trace_id);
    const other = ok(
      normalizeInput({ ...delivery, headers: { "x-github-delivery": "d-43" } }, options()),
    );
    expect(other.correlation.dedupe_key).not.toBe(first.correlation.dedupe_key);
  });

  it("keys events without a message id by their content, not their times", () => {
    const a = ok(normalizeInput({ kind: "webhook", connectorId: "c", body: { n: 1 } }, options()));
    const b = ok(
      normalizeInput(
        { kind: "webhook", connectorId: "c", body: { n: 1 }, occurredAt: NOW - 5_000 },
        { clock: { now: () => NOW + 1 } },
      ),
    );
    const c = ok(normalizeInput({ kind: "webhook", connectorId: "c", body: { n: 2 } }, options()));
    expect(a.correlation.dedupe_key).toBe(b.correlation.dedupe_key);
    expect(a.correlation.dedupe_key).not.toBe(c.correlation.dedupe_key);
  });

  it("normalises a CLI message as a user's message from connector cli", () => {
    const event = ok(
      normalizeInput({ kind: "cli", text: "remind me at 5", actorId: "ana" }, options()),
    );
    expect(event.source).toMatchObject({ channel: "webhook", connector_id: "cli" });
    expect(event.actor).toEqual({ actor_type: "user", actor_id: "ana" });
    expect(event.content.text).toBe("remind me at 5");
    expect(event.occurred_at).toBe(event.ingested_at);
    const sms = ok(normalizeInput({ kind: "cli", text: "hi", channel: "sms" }, options()));
    expect(sms.source.channel).toBe("sms");
  });

  it("makes a scheduled tick for the same instant the same event", () => {
    const at = Date.parse("2026-03-01T09:00:00.000Z");
    const tick = { kind: "tick" as const, scheduleId: "nightly", scheduledAt: at };
    const a = ok(normalizeInput(tick, options()));
    const b = ok(normalizeInput(tick, { clock: { now: () => NOW + 10 } }));
    expect(a.source).toMatchObject({
      channel: "scheduler",
      message_id: "nightly@2026-03-01T09:00:00.000Z",
    });
    expect(a.actor).toEqual({ actor_type: "system", actor_id: "scheduler" });
    expect(a.occurred_at).toBe("2026-03-01T09:00:00.000Z");
    expect(a.content.structured).toMatchObject({ schedule_id: "nightly", lag_ms: 30 * 60_000 });
    expect(a.correlation.dedupe_key).toBe(b.correlation.dedupe_key);
    const next = ok(normalizeInput({ ...tick, scheduledAt: at + 86_400_000 }, options()));
    expect(next.correlation.dedupe_key).not.toBe(a.correlation.dedupe_key);
  });

  it("joins the parent's trace when an event triggers another", () => {
    const parent = ok(normalizeInput({ kind: "cli", text: "start" }, options()));
    const child = ok(
      normalizeInput(
        {
          kind: "cli",
          text: "follow-up",
          parent: { eventId: parent.event_id, traceId: parent.correlation.trace_id },
        },
        options({ newId: () => "0192f5e0-7c1a-7000-8000-00000000ffff" }),
      ),
    );
    expect(child.correlation.trace_id).toBe(parent.correlation.trace_id);
    expect(child.correlation.parent_event_id).toBe(parent.event_id);
  });

  it("applies context and security defaults, and reports bad ones as problems", () => {
    const event = ok(
      normalizeInput(
        { kind: "cli", text: "x" },
        options({ defaults: { timezone: "Europe/Lisbon", locale: "pt-PT", sensitivity: "high" } }),
      ),
    );
    expect(event.context).toEqual({ timezone: "Europe/Lisbon", locale: "pt-PT", device_id: null });
    expect(event.security).toEqual({ sensitivity: "high", redaction_policy_id: "default" });
    const bad = normalizeInput({ kind: "cli", text: "x", timezone: "Nowhere/Special" }, options());
    expect(bad.ok).toBe(false);
    if (!bad.ok)
      expect(bad.problems).toEqual([expect.objectContaining({ path: "/context/timezone" })]);
  });

  it("refuses bodies that are not JSON objects, without throwing", () => {
    for (const [body, code, actual] of [
      ["{not json", "json_invalid", "{not json"],
      [[1, 2], "model_type", "array"],
      [null, "model_type", "null"],
      [7, "model_type", "number"],
    ] as const) {
      const result = normalizeInput({ kind: "webhook", connectorId: "c", body }, options());
      expect(result.ok).toBe(false);
      if (!result.ok)
        expect(result.problems).toEqual([expect.objectContaining({ code, path: "/", actual })]);
    }
    const parsed = ok(
      normalizeInput({ kind: "webhook", connectorId: "c", body: '{"a":1}' }, options()),
    );
    expect(parsed.content.structured).toEqual({ a: 1 });
  });

  it("reports an empty connector, a bad tick and a bad source time as problems", () => {
    const empty = normalizeInput({ kind: "webhook", connectorId: "", body: {} }, options());
    expect(!empty.ok && empty.problems.map((p) => p.path)).toEqual([
      "/source/connector_id",
      "/actor/actor_id",
    ]);
    const tick = normalizeInput(
      { kind: "tick", scheduleId: "", scheduledAt: Number.NaN },
      options(),
    );
    expect(!tick.ok && tick.problems.map((p) => p.path)).toEqual(["/scheduleId", "/scheduledAt"]);
    const time = normalizeInput(
      { kind: "webhook", connectorId: "c", body: {}, occurredAt: 1e20 },
      options(),
    );
    expect(!time.ok && time.problems.map((p) => p.path)).toEqual(["/occurredAt"]);
  });
});
