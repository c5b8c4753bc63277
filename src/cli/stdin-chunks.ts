/**
 * Standard input read synchronously, a chunk at a time, for the rule engine's `read` and
 * `readline`: the engine runs synchronously, and it asks only when a program reads, so a program
 * that never reads never touches stdin (and never waits on a terminal).
 */
import { readSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";

export function stdinChunks(fd = 0): () => string | null {
  const buffer = Buffer.alloc(64 * 1024);
  const decoder = new StringDecoder("utf8");
  let ended = false;
  return () => {
    while (!ended) {
      let n: number;
      try {
        n = readSync(fd, buffer, 0, buffer.length, null);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // A non-blocking pipe with nothing yet: wait a little and ask again.
        if (code === "EAGAIN") {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
          continue;
        }
        if (code === "EOF") n = 0;
        else throw error;
      }
      if (n === 0) {
        ended = true;
        const rest = decoder.end();
        return rest === "" ? null : rest;
      }
      const text = decoder.write(buffer.subarray(0, n));
      if (text !== "") return text;
    }
    return null;
  };
}
