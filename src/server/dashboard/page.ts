/** Escapes text for HTML (element content and quoted attributes). */
export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The dashboard's pages, in menu order. */
export const PAGES = [
  { id: "runs", title: "Runs", href: "/ui/runs" },
  { id: "approvals", title: "Approvals", href: "/ui/approvals" },
  { id: "audit", title: "Audit", href: "/ui/audit" },
  { id: "ledger", title: "Ledger", href: "/ui/ledger" },
  { id: "jobs", title: "Jobs", href: "/ui/jobs" },
  { id: "catalog", title: "Catalog", href: "/ui/catalog" },
  { id: "memory", title: "Memory", href: "/ui/memory" },
] as const;

const BODIES: Record<string, string> = {
  runs: `<h1>Runs</h1>
<section class="panel"><div class="row"><label>status <select id="status-filter">
<option value="">all</option><option>pending</option><option>running</option><option>paused</option>
<option>succeeded</option><option>failed</option><option>canceled</option></select></label></div>
<div id="runs" aria-live="polite">loading…</div></section>`,
  run: `<h1>Run <span class="mono" id="run-id"></span></h1>
<section class="panel" id="run">loading…</section>
<div class="grid2"><div>
<section class="panel"><h2>Graph</h2><div id="graph"></div></section>
<section class="panel"><h2>State</h2><div id="state"></div></section>
<section class="panel"><div id="fork"></div></section>
</div><section class="panel"><h2>History</h2><div id="history"></div></section></div>`,
  approvals: `<h1>Approvals</h1><div id="approvals-result"></div>
<section class="panel"><div id="approvals" aria-live="polite">loading…</div></section>`,
  audit: `<h1>Audit</h1>
<section class="panel"><form id="audit-form" class="row">
<input id="trace" placeholder="trace id" aria-label="trace id" size="38">
<input id="text" placeholder="search summaries" aria-label="search">
<button type="submit">show</button>
<button type="button" id="verify" class="primary">verify chain</button></form>
<div id="verify-result"></div><div id="timeline">loading…</div></section>`,
  ledger: `<h1>Tool calls in doubt</h1><div id="ledger-result"></div>
<section class="panel"><div id="ledger">loading…</div></section>`,
  jobs: `<h1>Job queue</h1><div id="jobs-result"></div>
<section class="panel"><div class="row"><label>status <select id="job-status">
<option value="">all</option><option>queued</option><option>running</option><option>completed</option>
<option>failed</option></select></label><span id="job-counts" class="muted"></span></div>
<div id="jobs" aria-live="polite">loading…</div></section>`,
  catalog: `<h1>Catalog</h1>
<section class="panel"><form id="catalog-form" class="row">
<input id="catalog-query" placeholder='query, e.g. kind:skill issue:any' aria-label="query" size="40">
<button type="submit">filter</button><span id="catalog-stats" class="muted"></span></form></section>
<div class="grid2"><section class="panel"><h2>Graph</h2><div id="catalog-graph">loading…</div></section>
<section class="panel" id="inspector-panel"><h2>Node</h2><div id="inspector"><p class="muted">Select a node in the graph.</p></div></section></div>`,
  memory: `<h1>Decision memory</h1>
<section class="panel"><form id="memory-form" class="row">
<input id="memory-query" placeholder="search decisions" aria-label="search decisions" size="40" required>
<select id="memory-mode" aria-label="mode"><option>balanced</option><option>strict</option><option>audit</option></select>
<button type="submit" class="primary">search</button></form>
<div id="memory-hits" aria-live="polite"></div></section>
<section class="panel"><div id="memory-record"></div></section>`,
};

/** A dashboard page: the shell (menu, theme switch, live indicator) and the page's containers. */
export function renderPage(
  page: string,
  options: { csrf: string; who: string; runId?: string },
): string {
  const menu = PAGES.map(
    (p) =>
      `<a href="${p.href}"${p.id === page || (page === "run" && p.id === "runs") ? ' aria-current="page"' : ""}>${p.title}</a>`,
  ).join("");
  const body = (BODIES[page] ?? "").replace(
    '<span class="mono" id="run-id"></span>',
    `<span class="mono" id="run-id">${esc(options.runId ?? "")}</span>`,
  );
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf" content="${esc(options.csrf)}">
<title>Keel · ${esc(page)}</title>
<link rel="stylesheet" href="/ui/assets/dashboard.css"></head>
<body data-page="${esc(page)}"${options.runId ? ` data-run="${esc(options.runId)}"` : ""}>
<header><span class="brand">Keel</span><nav>${menu}</nav><span class="spacer"></span>
<span class="live" id="live">live</span><span class="muted">${esc(options.who)}</span>
<button type="button" id="theme" aria-label="switch theme">◐</button>
<form method="post" action="/logout"><input type="hidden" name="_csrf" value="${esc(options.csrf)}"><button type="submit">log out</button></form>
</header><main><div id="error"></div>${body}</main>
<script type="module" src="/ui/assets/dashboard.js"></script></body></html>`;
}

/** The login page: paste a token (or follow the link `keel serve` prints). */
export function renderLogin(message?: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Keel · log in</title><link rel="stylesheet" href="/ui/assets/dashboard.css"></head>
<body><main class="login"><section class="panel"><h1>Keel</h1>
${message ? `<div class="banner bad" role="alert">${esc(message)}</div>` : ""}
<p>Paste a token (<span class="mono">keel tokens create --capability read …</span>), or open the link <span class="mono">keel serve</span> printed.</p>
<form method="post" action="/login" class="row"><input type="password" name="token" aria-label="token" placeholder="keel_…" required size="40">
<button type="submit" class="primary">log in</button></form></section></main></body></html>`;
}
