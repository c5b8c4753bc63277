// A jobs worker in its own process, for the no-double-claim and crash tests (bundled by
// build-worker.ts so it starts fast). Usage: job-worker <claim|run> <db> <keelDir> [loops|command]
//   claim: <loops> parallel claim → record loops until the queue is empty; prints the claimed ids.
//   run:   runJobs --all with the cli runner <command>, events as ndjson on stdout.
import {
  claimNextJob,
  cliRunner,
  ndjsonSink,
  openJobsContext,
  recordJob,
  runJobs,
} from "../../../src/jobs/index.js";
import { openStore } from "../../../src/store/index.js";

const [mode, db = "", keelDir = "", extra = "1"] = process.argv.slice(2);
const dialect = db.startsWith("postgres") ? "postgres" : "sqlite";
const store = await openStore({
  location: dialect === "postgres" ? { dialect, url: db, keelDir } : { dialect, path: db, keelDir },
  migrationsDir: process.env.KEEL_MIGRATIONS_DIR,
  autoMigrate: false,
  busyTimeoutMs: 60_000,
});
const ctx = await openJobsContext(store);
const report = {
  whatItDoes: "done",
  confidence: 1,
  safety: { injectionDetected: false, contentQuality: "clean" },
};
process.stdout.write("ready\n");
if (mode === "claim") {
  const claimed: string[] = [];
  const loop = async () => {
    for (;;) {
      const job = await claimNextJob(ctx, { runner: "cli" });
      if (!job) return;
      claimed.push(job.id);
      await recordJob(ctx, { id: job.id, nonce: job.nonce, status: "completed", report });
    }
  };
  await Promise.all(Array.from({ length: Number(extra) }, loop));
  process.stdout.write(`${JSON.stringify({ claimed })}\n`);
} else {
  await runJobs(ctx, {
    mode: "all",
    runner: cliRunner({ command: extra }),
    emit: ndjsonSink((line) => process.stdout.write(line)),
  });
}
await store.close();
