import { afterAll, describe, expect, it } from "vitest";
import { runtimeDb } from "../../src/runtime/db/tables.js";
import {
  AuditWriter,
  IngestService,
  type RawWebhook,
  readAuditTrace,
} from "../../src/runtime/index.js";
import { ManualClock } from "./support/clock.js";
import type { RuntimeHarness } from "./support/harness.js";

const delivery: RawWebhook = {
  kind: "webhook",
  connectorId: "github",
  body: { text: "deploy api" },
  headers: { "x-github-delivery": "d-1" },
};

export function runIngestCases(harness: RuntimeHarness): void {
  describe(`ingestion with duplicate suppression: ${harness.dialect}`, () => {
    afterAll(() => harness.cleanup());

    async function setup(label: string, dedupeWindowMs?: number) {
      const store = await harness.open(label);
      const clock = new ManualClock();
      const audit = new AuditWriter(store, { clock });
      const ingest = new IngestService({ store, audit, clock, dedupeWindowMs });
      return { store, clock, ingest };
    }

    it("accepts an event, stores it and audits it on its new trace", async () => {
      const { store, ingest } = await setup("ingest_accept");
      const outcome = await ingest.ingest(delivery);
      expect(outcome.status).toBe("accepted");
      if (outcome.status !== "accepted") return;
      expect(await ingest.getEvent(outcome.event.event_id)).toEqual(outcome.event);
      const trail = await readAuditTrace(store, outcome.event.correlation.trace_id);
      expect(trail.map((e) => [e.type, e.outcome, e.refs.event_id])).toEqual([
        ["event.ingested", "success", outcome.event.event_id],
      ]);
    });

    it("suppresses a repeat inside the window, audited on the original's trace, and admits it after", async () => {
      const { store, clock, ingest } = await setup("ingest_window", 60_000);
      const first = await ingest.ingest(delivery);
      clock.advance(30_000);
      const repeat = await ingest.ingest({ ...delivery, body: { text: "deploy api", retry: 1 } });
      expect(repeat.status).toBe("duplicate");
      if (first.status !== "accepted" || repeat.status !== "duplicate") return;
      expect(repeat.originalEventId).toBe(first.event.event_id);
      const trail = await readAuditTrace(store, first.event.correlation.trace_id);
      expect(trail.map((e) => [e.type, e.outcome])).toEqual([
        ["event.ingested", "success"],
        ["event.duplicate_suppressed", "suppressed"],
      ]);
      expect(await runtimeDb(store).selectFrom("state_events").select("id").execute()).toHaveLength(
        1,
      );
      clock.advance(30_000);
      const later = await ingest.ingest(delivery);
      expect(later.status).toBe("accepted");
    });

    it("stores the ingested_at the event carries (one clock reading per ingestion)", async () => {
      const store = await harness.open("ingest_one_clock");
      // A clock that moves on every reading, as a real one does between two reads.
      const clock = new ManualClock();
      const ticking = {
        now: () => {
          clock.advance(7);
          return clock.now();
        },
      };
      const ingest = new IngestService({ store, audit: new AuditWriter(store), clock: ticking });
      const outcome = await ingest.ingest(delivery);
      if (outcome.status !== "accepted") throw new Error(outcome.status);
      const row = await runtimeDb(store)
        .selectFrom("state_events")
        .select("ingested_at")
        .where("id", "=", outcome.event.event_id)
        .executeTakeFirstOrThrow();
      expect(new Date(Number(row.ingested_at)).toISOString()).toBe(outcome.event.ingested_at);
    });

    it("admits exactly one of many concurrent deliveries of the same input", async () => {
      const { store, ingest } = await setup("ingest_concurrent");
      const outcomes = await Promise.all(Array.from({ length: 12 }, () => ingest.ingest(delivery)));
      expect(outcomes.filter((o) => o.status === "accepted")).toHaveLength(1);
      expect(outcomes.filter((o) => o.status === "duplicate")).toHaveLength(11);
      expect(await runtimeDb(store).selectFrom("state_events").select("id").execute()).toHaveLength(
        1,
      );
    });

    it("rejects input that fails the contract, audited with its problems, never stored", async () => {
      const { store, ingest } = await setup("ingest_reject");
      const outcome = await ingest.ingest({ kind: "webhook", connectorId: "c", body: "{oops" });
      expect(outcome.status).toBe("rejected");
      if (outcome.status !== "rejected") return;
      expect(outcome.problems[0]?.code).toBe("json_invalid");
      const [event] = await readAuditTrace(store, outcome.traceId);
      expect(event).toMatchObject({
        type: "event.rejected",
        outcome: "failure",
        stage: "normalize",
      });
      expect(await runtimeDb(store).selectFrom("state_events").select("id").execute()).toEqual([]);
    });
  });
}
