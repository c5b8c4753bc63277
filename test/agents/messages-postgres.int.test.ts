import { PostgresSaver } from "../../src/checkpoint/postgres/index.js";
import { openStore } from "../../src/store/index.js";
import { postgresTestStore } from "../checkpoint/support/databases.js";
import { postgresAvailable } from "../support/postgres.js";
import { runMessagesCase } from "./messages.case.js";

runMessagesCase({
  name: "PostgresSaver",
  available: postgresAvailable,
  newSaver: async () => {
    const { store, db, cleanup } = await postgresTestStore("agents_messages");
    const extra: Array<{ close(): Promise<void> }> = [];
    return {
      saver: PostgresSaver.fromStore(store),
      reopen: async () => {
        const again = await openStore({ db, poolSize: 2 });
        extra.push(again);
        return PostgresSaver.fromStore(again);
      },
      cleanup: async () => {
        for (const s of extra) await s.close();
        await cleanup();
      },
    };
  },
});
