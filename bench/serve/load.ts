/** Latency figures of a batch of requests, in milliseconds. */
export interface LoadFigures {
  runs: number;
  seconds: number;
  runsPerSecond: number;
  p50: number;
  p99: number;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/**
 * `clients` concurrent clients, each making `perClient` no-op runs one after another with
 * `create + wait` (POST /threads/{id}/runs/wait) on a thread of its own, over keep-alive HTTP.
 */
export async function runLoad(options: {
  url: string;
  headers: Record<string, string>;
  assistant: string;
  clients: number;
  perClient: number;
}): Promise<LoadFigures> {
  const { url, headers, assistant } = options;
  const threads = await Promise.all(
    Array.from({ length: options.clients }, async () => {
      const res = await fetch(`${url}/threads`, { method: "POST", headers, body: "{}" });
      return ((await res.json()) as { thread_id: string }).thread_id;
    }),
  );
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    threads.map(async (thread) => {
      for (let i = 0; i < options.perClient; i++) {
        const t0 = performance.now();
        const res = await fetch(`${url}/threads/${thread}/runs/wait`, {
          method: "POST",
          headers,
          body: JSON.stringify({ assistant_id: assistant, input: { x: i } }),
        });
        await res.text();
        if (!res.ok) throw new Error(`run failed: HTTP ${res.status}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    runs: latencies.length,
    seconds,
    runsPerSecond: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

/**
 * Milliseconds from sending a streamed run's request to its first SSE event, and to its first
 * `values` event (median of `rounds` sequential runs).
 */
export async function firstEvent(options: {
  url: string;
  headers: Record<string, string>;
  assistant: string;
  rounds: number;
}): Promise<{ first: number; values: number }> {
  const { url, headers } = options;
  const res = await fetch(`${url}/threads`, { method: "POST", headers, body: "{}" });
  const thread = ((await res.json()) as { thread_id: string }).thread_id;
  const firsts: number[] = [];
  const values: number[] = [];
  for (let i = 0; i < options.rounds; i++) {
    const t0 = performance.now();
    const stream = await fetch(`${url}/threads/${thread}/runs/stream`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        assistant_id: options.assistant,
        input: { x: i },
        stream_mode: ["values"],
      }),
    });
    const reader = stream.body?.getReader();
    if (!reader) throw new Error("no stream body");
    const decoder = new TextDecoder();
    let text = "";
    let first = Number.NaN;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (Number.isNaN(first) && text.includes("event:")) first = performance.now() - t0;
      if (/event: ?values/.test(text)) {
        values.push(performance.now() - t0);
        break;
      }
    }
    firsts.push(first);
    await reader.cancel().catch(() => {});
    // Let the run end before the next one starts on the same thread.
    for (;;) {
      const runs = (await (
        await fetch(`${url}/threads/${thread}/runs?limit=1`, { headers })
      ).json()) as Array<{ status: string }>;
      if (runs[0] && runs[0].status !== "pending" && runs[0].status !== "running") break;
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  const med = (xs: number[]) =>
    [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
  return { first: med(firsts), values: med(values) };
}
