import type { Kysely } from "kysely";
import type { KernelDatabase } from "../../store/index.js";

/** A connection or a transaction over the kernel tables: what every job statement runs on. */
export type JobsDb = Kysely<KernelDatabase>;
