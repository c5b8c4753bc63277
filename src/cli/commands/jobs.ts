import type { Command } from "commander";
import type { CliModule } from "../command.js";
import { registerJobAdmin } from "./jobs-admin.js";
import { registerJobRead } from "./jobs-read.js";
import { registerJobRun } from "./jobs-run.js";
import { registerJobSubmit } from "./jobs-submit.js";

/**
 * `keel job …`: the dispatch lifecycle (seed 004, dispatch-lifecycle.md). Submit applies an
 * action to catalog nodes; claim, run and record move jobs through queued → running → terminal
 * exactly once; list, show, preview and status read; cancel, reap and prune administer.
 */
export const jobCommands: CliModule = {
  register(program: Command): void {
    const job = program
      .command("job")
      .description("Jobs: actions applied to catalog nodes, claimed and recorded exactly once.");
    registerJobSubmit(job);
    registerJobRun(job);
    registerJobRead(job);
    registerJobAdmin(job);
  },
};
