// Keel dashboard client: fills the server-rendered pages from the JSON API and keeps them live
// over the server's event channel (SSE). No framework and no build step: the pages are small.
// Text is always set with textContent, never parsed as HTML.

const csrf = document.querySelector('meta[name="csrf"]')?.getAttribute("content") ?? "";
const page = document.body.dataset.page ?? "";

/** Calls the API as this session (cookie), with the session's CSRF token on every change. */
async function api(method, path, body) {
  const response = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: { "content-type": "application/json", "x-csrf-token": csrf },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  const json = text ? JSON.parse(text) : null;
  if (!response.ok)
    throw new Error(json?.error?.message ?? `${response.status} ${response.statusText}`);
  return json;
}

/** Makes an element: h("td", { class: "mono" }, "text", child, …). */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

function status(text) {
  return h("span", { class: `status ${text}` }, text);
}

function when(value) {
  if (value === null || value === undefined) return "-";
  const date = typeof value === "number" ? new Date(value) : new Date(String(value));
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString();
}

function table(headers, rows) {
  return h(
    "div",
    { class: "scroll" },
    h(
      "table",
      {},
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          headers.map((t) => h("th", {}, t)),
        ),
      ),
      h("tbody", {}, rows),
    ),
  );
}

function fill(id, ...children) {
  const el = document.getElementById(id);
  if (!el) return;
  el.replaceChildren(...children);
}

function banner(id, ok, text) {
  fill(id, h("div", { class: `banner ${ok ? "ok" : "bad"}`, role: "status" }, text));
}

/** Runs `fn` at most once per `ms`, the last call winning. */
function debounce(fn, ms) {
  let timer;
  return () => {
    clearTimeout(timer);
    timer = setTimeout(fn, ms);
  };
}

// Theme: the system's unless chosen; the choice is remembered.
const stored = localStorage.getItem("keel-theme");
if (stored) document.documentElement.dataset.theme = stored;
document.getElementById("theme")?.addEventListener("click", () => {
  const dark =
    document.documentElement.dataset.theme === "dark" ||
    (!document.documentElement.dataset.theme && matchMedia("(prefers-color-scheme: dark)").matches);
  const next = dark ? "light" : "dark";
  document.documentElement.dataset.theme = next;
  localStorage.setItem("keel-theme", next);
});

/** Subscribes to the server's events; `onEvent` gets each one. */
function live(onEvent) {
  const indicator = document.getElementById("live");
  const source = new EventSource("/api/events");
  source.addEventListener("ready", () => indicator?.classList.add("on"));
  source.addEventListener("event", (e) => onEvent(JSON.parse(e.data)));
  source.onerror = () => indicator?.classList.remove("on");
}

// ---------------------------------------------------------------------------------------------
// Runs

async function runsPage() {
  const filter = document.getElementById("status-filter");
  const load = async () => {
    const status_ = filter.value;
    const { runs } = await api("GET", `/api/runs?limit=200${status_ ? `&status=${status_}` : ""}`);
    fill(
      "runs",
      runs.length === 0
        ? h("p", { class: "muted" }, "No runs yet.")
        : table(
            ["run", "status", "graph", "thread", "created", "error"],
            runs.map((r) =>
              h(
                "tr",
                { "data-run": r.id },
                h("td", { class: "mono" }, h("a", { href: `/ui/runs/${r.id}` }, r.id)),
                h("td", {}, status(r.status)),
                h("td", {}, r.graphId ?? "-"),
                h("td", { class: "mono hide-narrow" }, r.threadId),
                h("td", { class: "hide-narrow" }, when(r.createdAt)),
                h("td", {}, r.error ? `${r.error.code}: ${r.error.message}` : ""),
              ),
            ),
          ),
    );
  };
  filter.addEventListener("change", load);
  await load();
  const reload = debounce(load, 150);
  live((event) => {
    if (event.type.startsWith("run.") || event.type.startsWith("approval.")) reload();
  });
}

// ---------------------------------------------------------------------------------------------
// One run: its graph, the current node, its history (time travel) and fork

/** Lays a graph out in layers (distance from START) and draws it as SVG. */
function drawGraph(topology, current) {
  const ns = "http://www.w3.org/2000/svg";
  const depth = new Map([["__start__", 0]]);
  const queue = ["__start__"];
  while (queue.length) {
    const node = queue.shift();
    for (const edge of topology.edges) {
      if (edge.source === node && !depth.has(edge.target)) {
        depth.set(edge.target, (depth.get(node) ?? 0) + 1);
        queue.push(edge.target);
      }
    }
  }
  const maxDepth = Math.max(0, ...depth.values());
  for (const node of topology.nodes) if (!depth.has(node.id)) depth.set(node.id, maxDepth + 1);
  if (depth.get("__end__") !== undefined) depth.set("__end__", Math.max(...depth.values()));
  const layers = new Map();
  for (const node of topology.nodes) {
    const d = depth.get(node.id);
    layers.set(d, [...(layers.get(d) ?? []), node.id]);
  }
  const pos = new Map();
  const W = 150;
  const H = 56;
  let height = 0;
  for (const [d, ids] of layers) {
    for (const [i, id] of ids.entries()) pos.set(id, { x: 10 + d * W, y: 10 + i * H });
    height = Math.max(height, ids.length * H);
  }
  const width = 10 + (Math.max(...layers.keys()) + 1) * W;
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("class", "graph");
  svg.setAttribute("viewBox", `0 0 ${width} ${height + 20}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "run graph");
  for (const edge of topology.edges) {
    const a = pos.get(edge.source);
    const b = pos.get(edge.target);
    if (!a || !b) continue;
    const line = document.createElementNS(ns, "line");
    line.setAttribute("x1", String(a.x + 110));
    line.setAttribute("y1", String(a.y + 16));
    line.setAttribute("x2", String(b.x));
    line.setAttribute("y2", String(b.y + 16));
    if (edge.conditional) line.setAttribute("class", "conditional");
    svg.append(line);
  }
  for (const node of topology.nodes) {
    const p = pos.get(node.id);
    const g = document.createElementNS(ns, "g");
    g.setAttribute("data-node", node.id);
    if (current.includes(node.id)) g.setAttribute("class", "current");
    const rect = document.createElementNS(ns, "rect");
    rect.setAttribute("x", String(p.x));
    rect.setAttribute("y", String(p.y));
    rect.setAttribute("width", "110");
    rect.setAttribute("height", "32");
    rect.setAttribute("rx", "6");
    const text = document.createElementNS(ns, "text");
    text.setAttribute("x", String(p.x + 8));
    text.setAttribute("y", String(p.y + 20));
    text.textContent = node.id;
    g.append(rect, text);
    svg.append(g);
  }
  return svg;
}

async function runPage() {
  const runId = document.body.dataset.run;
  let selected = null;
  const load = async () => {
    const { run, assistantId } = await api("GET", `/api/runs/${runId}`);
    fill(
      "run",
      table(
        ["status", "graph", "thread", "trace", "started", "finished", "error"],
        [
          h(
            "tr",
            {},
            h("td", { id: "run-status" }, status(run.status)),
            h("td", {}, run.graphId ?? "-"),
            h("td", { class: "mono" }, run.threadId),
            h(
              "td",
              { class: "mono" },
              h("a", { href: `/ui/audit?trace=${run.traceId}` }, run.traceId),
            ),
            h("td", {}, when(run.startedAt)),
            h("td", {}, when(run.finishedAt)),
            h("td", {}, run.error ? `${run.error.code}: ${run.error.message}` : ""),
          ),
        ],
      ),
    );
    if (!assistantId) {
      fill(
        "graph",
        h("p", { class: "muted" }, "Not a run of the LangGraph API: see its audit trail."),
      );
      return;
    }
    const thread = run.threadId;
    const [topology, state, history] = await Promise.all([
      api("GET", `/assistants/${assistantId}/graph`),
      selected
        ? api("GET", `/threads/${thread}/state/${selected}`)
        : api("GET", `/threads/${thread}/state`),
      api("POST", `/threads/${thread}/history`, { limit: 100 }),
    ]);
    fill("graph", drawGraph(topology, state.next));
    fill(
      "state",
      h("pre", { class: "mono", id: "state-values" }, JSON.stringify(state.values, null, 2)),
    );
    fill(
      "history",
      h(
        "ol",
        { class: "history" },
        history.map((s) => {
          const id = s.checkpoint.checkpoint_id;
          return h(
            "li",
            {
              class: id === (selected ?? state.checkpoint?.checkpoint_id) ? "selected" : "",
              "data-checkpoint": id,
            },
            h("span", { class: "mono" }, `step ${s.metadata?.step ?? "?"}`),
            h("span", { class: "muted" }, s.next.length ? `next: ${s.next.join(", ")}` : "end"),
            h(
              "button",
              {
                type: "button",
                onclick: () => {
                  selected = id;
                  load();
                },
              },
              "view",
            ),
            h(
              "button",
              { type: "button", onclick: () => openFork(thread, assistantId, s) },
              "fork",
            ),
          );
        }),
      ),
    );
  };
  const openFork = (thread, assistantId, snapshot) => {
    const values = h(
      "textarea",
      { id: "fork-values", "aria-label": "values" },
      JSON.stringify(snapshot.values, null, 2),
    );
    fill(
      "fork",
      h(
        "p",
        {},
        `Fork from step ${snapshot.metadata?.step}: edit the values, then fork and run from there.`,
      ),
      values,
      h(
        "div",
        { class: "row" },
        h(
          "button",
          {
            type: "button",
            class: "primary",
            id: "fork-submit",
            onclick: async () => {
              try {
                const update = await api("POST", `/threads/${thread}/state`, {
                  checkpoint_id: snapshot.checkpoint.checkpoint_id,
                  values: JSON.parse(values.value),
                });
                const run = await api("POST", `/threads/${thread}/runs`, {
                  assistant_id: assistantId,
                  input: null,
                  checkpoint_id: update.checkpoint.checkpoint_id,
                });
                location.href = `/ui/runs/${run.run_id}`;
              } catch (error) {
                banner("fork-result", false, error.message);
              }
            },
          },
          "fork and run",
        ),
      ),
      h("div", { id: "fork-result" }),
    );
  };
  await load();
  const reload = debounce(load, 150);
  live((event) => {
    if (event.data?.run_id === runId || event.data?.thread_id) reload();
  });
}

// ---------------------------------------------------------------------------------------------
// Approvals

async function approvalsPage() {
  const load = async () => {
    const { approvals } = await api("GET", "/api/approvals?limit=200");
    fill(
      "approvals",
      approvals.length === 0
        ? h("p", { class: "muted" }, "No approvals.")
        : table(
            ["approval", "status", "what", "risk", "why", "expires", "decide"],
            approvals.map((a) => {
              const reason = h("input", {
                type: "text",
                placeholder: "reason",
                "aria-label": "reason",
              });
              const decide = async (verdict) => {
                try {
                  await api("POST", `/api/approvals/${a.approval_id}/${verdict}`, {
                    reason: reason.value || null,
                  });
                  await load();
                } catch (error) {
                  banner("approvals-result", false, error.message);
                }
              };
              return h(
                "tr",
                { "data-approval": a.approval_id },
                h("td", { class: "mono" }, a.approval_id),
                h("td", {}, status(a.status)),
                h("td", { class: "mono" }, String(a.what.tool ?? "-")),
                h("td", {}, a.risk_level),
                h("td", {}, a.why),
                h("td", { class: "hide-narrow" }, when(a.expires_at)),
                h(
                  "td",
                  {},
                  a.status === "pending"
                    ? h(
                        "div",
                        { class: "row" },
                        reason,
                        h(
                          "button",
                          { type: "button", class: "primary", onclick: () => decide("approve") },
                          "approve",
                        ),
                        h(
                          "button",
                          { type: "button", class: "danger", onclick: () => decide("deny") },
                          "deny",
                        ),
                      )
                    : `${a.decision.by ?? "-"} ${a.decision.reason ? `: ${a.decision.reason}` : ""}`,
                ),
              );
            }),
          ),
    );
  };
  await load();
  const reload = debounce(load, 150);
  live((event) => {
    if (event.type.startsWith("approval.") || event.type.startsWith("run.")) reload();
  });
}

// ---------------------------------------------------------------------------------------------
// Audit

async function auditPage() {
  const trace = document.getElementById("trace");
  const text = document.getElementById("text");
  trace.value = new URLSearchParams(location.search).get("trace") ?? "";
  const load = async () => {
    const { events } = trace.value
      ? await api("GET", `/api/audit/${encodeURIComponent(trace.value.trim())}`)
      : await api(
          "GET",
          `/api/audit?limit=200${text.value ? `&text=${encodeURIComponent(text.value)}` : ""}`,
        );
    fill(
      "timeline",
      events.length === 0
        ? h("p", { class: "muted" }, "No events.")
        : table(
            ["time", "stage", "outcome", "type", "summary", "trace"],
            events.map((e) =>
              h(
                "tr",
                {},
                h("td", {}, when(e.timestamp)),
                h("td", {}, e.stage),
                h("td", {}, status(e.outcome)),
                h("td", { class: "mono" }, e.type),
                h("td", {}, e.summary),
                h(
                  "td",
                  { class: "mono hide-narrow" },
                  h("a", { href: `/ui/audit?trace=${e.trace_id}` }, e.trace_id),
                ),
              ),
            ),
          ),
    );
  };
  document.getElementById("audit-form").addEventListener("submit", (e) => {
    e.preventDefault();
    load();
  });
  document.getElementById("verify").addEventListener("click", async () => {
    try {
      const result = await api("POST", "/api/audit/verify");
      banner(
        "verify-result",
        result.ok,
        result.ok
          ? `Audit chain intact: ${result.checked} events checked.`
          : `Audit chain TAMPERED: ${result.findings.length} finding(s) in ${result.checked} events.`,
      );
    } catch (error) {
      banner("verify-result", false, error.message);
    }
  });
  await load();
}

// ---------------------------------------------------------------------------------------------
// Ledger: calls in doubt

async function ledgerPage() {
  const load = async () => {
    const { calls } = await api("GET", "/api/ledger?status=unknown&limit=200");
    fill(
      "ledger",
      calls.length === 0
        ? h("p", { class: "muted" }, "No tool call is in doubt.")
        : table(
            ["call", "tool", "run", "recorded", "settle"],
            calls.map(({ toolCall }) => {
              const outcome = h(
                "select",
                { "aria-label": "outcome" },
                h("option", { value: "succeeded" }, "succeeded"),
                h("option", { value: "failed" }, "failed"),
              );
              const output = h("textarea", {
                "aria-label": "output",
                placeholder: "output JSON (succeeded)",
              });
              const reason = h("input", {
                type: "text",
                placeholder: "what you checked",
                "aria-label": "reason",
              });
              return h(
                "tr",
                { "data-call": toolCall.tool_call_id },
                h("td", { class: "mono" }, toolCall.tool_call_id),
                h("td", { class: "mono" }, toolCall.tool_name),
                h("td", { class: "mono" }, toolCall.task_id ?? "-"),
                h("td", {}, when(toolCall.created_at)),
                h(
                  "td",
                  {},
                  outcome,
                  output,
                  reason,
                  h(
                    "button",
                    {
                      type: "button",
                      class: "primary",
                      onclick: async () => {
                        try {
                          await api("POST", `/api/ledger/${toolCall.tool_call_id}/resolve`, {
                            outcome: outcome.value,
                            ...(outcome.value === "succeeded"
                              ? { output: JSON.parse(output.value || "null") }
                              : {}),
                            reason: reason.value,
                          });
                          await load();
                        } catch (error) {
                          banner("ledger-result", false, error.message);
                        }
                      },
                    },
                    "settle",
                  ),
                ),
              );
            }),
          ),
    );
  };
  await load();
}

// ---------------------------------------------------------------------------------------------
// Jobs: the queue, live

async function jobsPage() {
  const filter = document.getElementById("job-status");
  const load = async () => {
    const { jobs, counts } = await api(
      "GET",
      `/api/jobs?limit=200${filter.value ? `&status=${filter.value}` : ""}`,
    );
    fill(
      "job-counts",
      Object.entries(counts)
        .map(([s, n]) => `${s} ${n}`)
        .join(" · "),
    );
    fill(
      "jobs",
      jobs.length === 0
        ? h("p", { class: "muted" }, "The queue is empty.")
        : table(
            ["job", "status", "action", "node", "created", "finished", ""],
            jobs.map((j) =>
              h(
                "tr",
                { "data-job": j.id },
                h("td", { class: "mono" }, j.id),
                h(
                  "td",
                  {},
                  status(j.status),
                  j.failureReason ? h("span", { class: "muted" }, ` ${j.failureReason}`) : "",
                ),
                h("td", { class: "mono" }, `${j.actionId}@${j.actionVersion}`),
                h("td", { class: "mono" }, j.nodeId),
                h("td", { class: "hide-narrow" }, when(j.createdAt)),
                h("td", { class: "hide-narrow" }, when(j.finishedAt)),
                h(
                  "td",
                  {},
                  j.status === "queued" || j.status === "running"
                    ? h(
                        "button",
                        {
                          type: "button",
                          class: "danger",
                          onclick: async () => {
                            try {
                              await api("POST", `/api/jobs/${j.id}/cancel`);
                              await load();
                            } catch (error) {
                              banner("jobs-result", false, error.message);
                            }
                          },
                        },
                        "cancel",
                      )
                    : "",
                ),
              ),
            ),
          ),
    );
  };
  filter.addEventListener("change", load);
  await load();
  const reload = debounce(load, 150);
  live((event) => {
    if (event.type.startsWith("job.")) reload();
  });
}

// ---------------------------------------------------------------------------------------------
// Catalog: the graph of the last scan and a node inspector

const KIND_ORDER = ["agent", "command", "skill", "hook", "note"];

/** Lays the catalog out in columns by kind (links that land on no node in a last column). */
function drawCatalog(graph, selected, onSelect) {
  const ns = "http://www.w3.org/2000/svg";
  const issueNodes = new Set(graph.issues.flatMap((i) => i.nodeIds));
  const columns = new Map(KIND_ORDER.map((k) => [k, []]));
  for (const node of graph.nodes) {
    if (!columns.has(node.kind)) columns.set(node.kind, []);
    columns.get(node.kind).push({ id: node.path, label: node.title || node.path, node });
  }
  const external = new Map();
  for (const link of graph.links)
    if (link.resolvedTarget === null && !external.has(link.target))
      external.set(link.target, { id: `?${link.target}`, label: link.target, node: null });
  columns.set("unresolved", [...external.values()]);
  const used = [...columns.entries()].filter(([, items]) => items.length > 0);
  const W = 190;
  const H = 48;
  const pos = new Map();
  let rows = 0;
  for (const [c, [, items]] of used.entries()) {
    for (const [r, item] of items.entries()) pos.set(item.id, { x: 10 + c * W, y: 30 + r * H });
    rows = Math.max(rows, items.length);
  }
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("class", "graph");
  svg.setAttribute("viewBox", `0 0 ${10 + used.length * W} ${40 + rows * H}`);
  svg.setAttribute("role", "group");
  svg.setAttribute("aria-label", "catalog graph");
  const defs = document.createElementNS(ns, "defs");
  const marker = document.createElementNS(ns, "marker");
  for (const [k, v] of Object.entries({
    id: "arrow",
    viewBox: "0 0 10 10",
    refX: "10",
    refY: "5",
    markerWidth: "6",
    markerHeight: "6",
    orient: "auto",
  }))
    marker.setAttribute(k, v);
  const tip = document.createElementNS(ns, "path");
  tip.setAttribute("d", "M0,0 L10,5 L0,10 z");
  marker.append(tip);
  defs.append(marker);
  svg.append(defs);
  for (const [c, [kind]] of used.entries()) {
    const title = document.createElementNS(ns, "text");
    title.setAttribute("x", String(10 + c * W));
    title.setAttribute("y", "16");
    title.setAttribute("class", "muted");
    title.textContent = kind;
    svg.append(title);
  }
  for (const link of graph.links) {
    const a = pos.get(link.source);
    const b = pos.get(link.resolvedTarget ?? `?${link.target}`);
    if (!a || !b) continue;
    const line = document.createElementNS(ns, "line");
    const back = b.x <= a.x;
    line.setAttribute("x1", String(back ? a.x : a.x + 150));
    line.setAttribute("y1", String(a.y + 16));
    line.setAttribute("x2", String(back ? b.x + 150 : b.x));
    line.setAttribute("y2", String(b.y + 16));
    line.setAttribute("class", `catalog ${link.kind}`);
    svg.append(line);
  }
  for (const items of columns.values()) {
    for (const item of items) {
      const p = pos.get(item.id);
      const g = document.createElementNS(ns, "g");
      const classes = ["node"];
      if (!item.node) classes.push("external");
      if (issueNodes.has(item.id)) classes.push("has-issue");
      if (item.id === selected) classes.push("selected");
      g.setAttribute("class", classes.join(" "));
      g.setAttribute("data-node", item.node ? item.id : item.label);
      if (item.node) {
        g.setAttribute("tabindex", "0");
        g.setAttribute("role", "button");
        g.setAttribute("aria-label", `${item.node.kind} ${item.id}`);
        g.addEventListener("click", () => onSelect(item.id));
        g.addEventListener("keydown", (e) => {
          if (e.key === "Enter" || e.key === " ") {
            e.preventDefault();
            onSelect(item.id);
          }
        });
      }
      const rect = document.createElementNS(ns, "rect");
      rect.setAttribute("x", String(p.x));
      rect.setAttribute("y", String(p.y));
      rect.setAttribute("width", "150");
      rect.setAttribute("height", "32");
      rect.setAttribute("rx", item.node ? "6" : "16");
      const text = document.createElementNS(ns, "text");
      text.setAttribute("x", String(p.x + 8));
      text.setAttribute("y", String(p.y + 20));
      text.textContent = item.label.length > 22 ? `${item.label.slice(0, 21)}…` : item.label;
      const hover = document.createElementNS(ns, "title");
      hover.textContent = item.id;
      g.append(rect, text, hover);
      svg.append(g);
    }
  }
  return svg;
}

function definitions(pairs) {
  return h(
    "dl",
    { class: "inspector" },
    pairs.flatMap(([term, value]) => [h("dt", {}, term), h("dd", {}, value)]),
  );
}

async function catalogPage() {
  const query = document.getElementById("catalog-query");
  query.value = new URLSearchParams(location.search).get("q") ?? "";
  let selected = new URLSearchParams(location.search).get("node");
  let graph = null;
  const inspect = async (path) => {
    selected = path;
    const d = await api("GET", `/api/nodes/show?path=${encodeURIComponent(path)}`);
    const link = (l, end) =>
      h("li", {}, h("span", { class: "muted" }, `${l.kind} `), h("span", { class: "mono" }, end));
    fill(
      "inspector",
      h("h3", { class: "mono", id: "inspected" }, d.node.path),
      definitions([
        ["kind", `${d.node.kind} (${d.node.adapter})`],
        ["title", d.node.title ?? "-"],
        ["description", d.node.description ?? "-"],
        ["version", d.node.version ?? "-"],
        [
          "weight",
          `${d.weight.bytes.total} bytes${d.weight.tokens ? `, ${d.weight.tokens.total} tokens` : ""}`,
        ],
        ["summary", d.summary ? JSON.stringify(d.summary) : "-"],
      ]),
      h("h4", {}, `links out (${d.linksOut.length})`),
      h(
        "ul",
        { id: "links-out" },
        d.linksOut.map((l) => link(l, l.target)),
      ),
      h("h4", {}, `links in (${d.linksInResolved.length})`),
      h(
        "ul",
        { id: "links-in" },
        d.linksInResolved.map((l) => link(l, `${l.source} (${l.target})`)),
      ),
      h("h4", {}, `issues (${d.issues.length})`),
      h(
        "ul",
        { id: "node-issues" },
        d.issues.map((i) => h("li", {}, status(i.severity), ` ${i.ruleId}: ${i.message}`)),
      ),
      h("h4", {}, "frontmatter"),
      h("pre", { class: "mono" }, JSON.stringify(d.frontmatter, null, 2)),
    );
    if (graph) fill("catalog-graph", drawCatalog(graph, selected, select));
  };
  const select = (path) => {
    const url = new URL(location.href);
    url.searchParams.set("node", path);
    history.replaceState(null, "", url);
    inspect(path).catch((error) => banner("inspector", false, error.message));
  };
  const load = async () => {
    try {
      const q = query.value.trim();
      graph = await api("GET", `/api/graph${q ? `?q=${encodeURIComponent(q)}` : ""}`);
      const scan = await api("GET", "/api/scan");
      fill(
        "catalog-stats",
        `${scan.scan.stats.nodesCount} nodes, ${scan.scan.stats.linksCount} links, ${scan.scan.issuesCount} issues; scanned ${when(scan.scan.scannedAt)}`,
      );
      fill(
        "catalog-graph",
        graph.nodes.length === 0
          ? h("p", { class: "muted" }, "No node matches.")
          : drawCatalog(graph, selected, select),
      );
      if (selected) await inspect(selected);
    } catch (error) {
      fill("catalog-graph", h("p", { class: "muted" }, error.message));
    }
  };
  document.getElementById("catalog-form").addEventListener("submit", (e) => {
    e.preventDefault();
    load();
  });
  await load();
  const reload = debounce(load, 300);
  live((event) => {
    if (event.type === "scan.changed") reload();
  });
}

// ---------------------------------------------------------------------------------------------
// Memory: search the decisions

async function memoryPage() {
  const query = document.getElementById("memory-query");
  const mode = document.getElementById("memory-mode");
  const show = async (id) => {
    const { record } = await api("GET", `/api/memory/${encodeURIComponent(id)}`);
    fill(
      "memory-record",
      h("h2", {}, record.title),
      definitions([
        ["id", record.id],
        ["status", status(record.status)],
        ["kind", record.kind],
        ["target", record.target],
        ["namespace", record.namespace],
        ["rationale", record.rationale],
        ["superseded by", record.superseded_by ?? "-"],
        ["supersedes", record.supersedes.join(", ") || "-"],
        ["created", when(record.created_at)],
        ["hits", String(record.hit_count)],
      ]),
    );
  };
  const search = async () => {
    const { hits } = await api(
      "GET",
      `/api/memory/search?limit=50&mode=${mode.value}&query=${encodeURIComponent(query.value)}`,
    );
    fill(
      "memory-hits",
      hits.length === 0
        ? h("p", { class: "muted" }, "Nothing found.")
        : table(
            ["decision", "status", "target", "score", "evidence"],
            hits.map((hit) =>
              h(
                "tr",
                { "data-record": hit.id },
                h(
                  "td",
                  {},
                  h(
                    "a",
                    {
                      href: "#",
                      onclick: (e) => {
                        e.preventDefault();
                        show(hit.id);
                      },
                    },
                    hit.title,
                  ),
                ),
                h("td", {}, status(hit.status)),
                h("td", { class: "mono" }, hit.target),
                h("td", {}, hit.score.toFixed(3)),
                h("td", {}, String(hit.evidence_count)),
              ),
            ),
          ),
    );
  };
  document.getElementById("memory-form").addEventListener("submit", (e) => {
    e.preventDefault();
    search().catch((error) => banner("memory-hits", false, error.message));
  });
  const initial = new URLSearchParams(location.search).get("q");
  if (initial) {
    query.value = initial;
    await search();
  }
}

const pages = {
  runs: runsPage,
  run: runPage,
  approvals: approvalsPage,
  audit: auditPage,
  ledger: ledgerPage,
  jobs: jobsPage,
  catalog: catalogPage,
  memory: memoryPage,
};
pages[page]?.().catch((error) => {
  fill("error", h("div", { class: "banner bad", role: "alert" }, error.message));
});
