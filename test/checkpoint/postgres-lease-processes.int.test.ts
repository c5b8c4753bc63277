import { postgresAvailable } from "../support/postgres.js";
import { runLeaseProcessSuite } from "./lease-processes.case.js";
import { postgresTestStore } from "./support/databases.js";

runLeaseProcessSuite({
  name: "Postgres",
  available: postgresAvailable,
  open: () => postgresTestStore("lease_processes"),
});
