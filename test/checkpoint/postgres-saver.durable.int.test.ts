import { postgresAvailable } from "../support/postgres.js";
import { runDurableSuite } from "./durable.case.js";
import { runRowLayoutSuite } from "./row-layout.case.js";
import { postgresTestStore } from "./support/databases.js";

runDurableSuite({
  name: "Postgres",
  available: postgresAvailable,
  open: () => postgresTestStore("saver_durable"),
});

runRowLayoutSuite({
  name: "Postgres",
  available: postgresAvailable,
  open: () => postgresTestStore("saver_layout"),
});
