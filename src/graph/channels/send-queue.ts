import type { Channel } from "./channel.js";

/** The `Send`s made in a step, as plain `{ node, args }` records; all run in the next step. */
export interface QueuedSend {
  node: string;
  args: unknown;
  /** The `Send`'s own `timeout` for the task it makes (overrides the node's). */
  timeout?: unknown;
}

/** Collects `Send`s; the next step takes them all (`consume`). */
export class SendQueue implements Channel {
  private sends: QueuedSend[] = [];

  has(): boolean {
    return this.sends.length > 0;
  }

  get(): unknown {
    return this.sends;
  }

  write(value: unknown): void {
    this.sends.push(value as QueuedSend);
  }

  fold(): unknown {
    return null;
  }

  consume(): boolean {
    if (this.sends.length === 0) return false;
    this.sends = [];
    return true;
  }

  snapshot(): unknown {
    return this.sends.slice();
  }

  restore(value: unknown): void {
    this.sends = (value as QueuedSend[]).slice();
  }
}
