import { MemorySaver } from "../../src/checkpoint/base/index.js";
import { SqliteSaver } from "../../src/checkpoint/sqlite/index.js";
import { openStore } from "../../src/store/index.js";
import { sqliteTestStore } from "../checkpoint/support/databases.js";
import { runMessagesCase } from "./messages.case.js";

runMessagesCase({
  name: "MemorySaver",
  newSaver: async () => {
    const saver = new MemorySaver();
    // MemorySaver keeps serialised text: the same object reads it back like a restarted process.
    return { saver, reopen: async () => saver, cleanup: async () => {} };
  },
});

runMessagesCase({
  name: "SqliteSaver",
  newSaver: async () => {
    const { store, db, cleanup } = await sqliteTestStore();
    const extra: Array<{ close(): Promise<void> }> = [];
    return {
      saver: SqliteSaver.fromStore(store),
      reopen: async () => {
        const again = await openStore({ db, backupBeforeMigrate: false });
        extra.push(again);
        return SqliteSaver.fromStore(again);
      },
      encodings: async (channel, threadId) =>
        (store.native.dialect === "sqlite"
          ? store.native.database
              .prepare(
                "select encoding from state_checkpoint_blobs where thread_id = ? and channel = ? order by checkpoint_seq",
              )
              .all(threadId, channel)
          : []
        ).map((row) => (row as { encoding: string }).encoding),
      cleanup: async () => {
        for (const s of extra) await s.close();
        await cleanup();
      },
    };
  },
});
