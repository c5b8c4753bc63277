import type { Channel } from "./channel.js";

/**
 * `branch:to:<node>`: set when an edge, a conditional edge or a `Command.goto` points at a node;
 * the node runs in the next step and consumes it. Several writes in a step run the node once.
 */
export class TriggerChannel implements Channel {
  private present = false;

  has(): boolean {
    return this.present;
  }

  get(): unknown {
    return this.present ? null : undefined;
  }

  write(): void {
    this.present = true;
  }

  fold(): unknown {
    return null;
  }

  consume(): boolean {
    if (!this.present) return false;
    this.present = false;
    return true;
  }

  snapshot(): unknown {
    return null;
  }

  restore(): void {
    this.present = true;
  }
}
