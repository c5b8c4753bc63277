import { KeelError } from "../../core/index.js";

/**
 * Refuses a database written by a newer Keel (`STORE_TOO_NEW`): this code cannot know what its
 * tables mean, so it must not write to it, not even a pragma.
 */
export function assertNotTooNew(version: number, latest: number, where: string): void {
  if (version > latest) {
    throw new KeelError(
      "STORE_TOO_NEW",
      `${where} is at schema version ${version}, newer than this Keel knows (${latest}).`,
      {
        details: { version, latest },
        hint: "Upgrade Keel to the version that wrote this database; Keel did not modify it.",
      },
    );
  }
}
