import { Command } from "../command.js";
import { Send } from "../send.js";
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
    // A Command given as a Send's args is saved in its JSON form: it comes back a Command.
    this.sends = (value as QueuedSend[]).map((send) =>
      isCommandJson(send.args) ? { ...send, args: commandFromJson(send.args) } : send,
    );
  }
}

interface CommandJson {
  lg_name: "Command";
  update?: unknown;
  resume?: unknown;
  goto?: unknown[];
}

function isCommandJson(value: unknown): value is CommandJson {
  return (
    typeof value === "object" &&
    value !== null &&
    !(value instanceof Command) &&
    (value as { lg_name?: unknown }).lg_name === "Command"
  );
}

/** A Command (its goto's Sends too) from the JSON form `Command.toJSON` gives. */
function commandFromJson(json: CommandJson): Command {
  const goto = (json.goto ?? []).map((target) => {
    const send = target as { lg_name?: unknown; node?: string; args?: unknown };
    return send?.lg_name === "Send" && typeof send.node === "string"
      ? new Send(send.node, send.args)
      : (target as string);
  });
  return new Command({
    ...(json.update !== undefined ? { update: json.update as Record<string, unknown> } : {}),
    ...(json.resume !== undefined ? { resume: json.resume } : {}),
    goto,
  });
}
