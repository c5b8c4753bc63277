import { EventLog } from "./event-log.js";

/**
 * A named channel a stream transformer pushes to (LangGraph.js's `StreamChannel`): what it pushes
 * is iterable from `run.extensions`, and a remote channel's pushes also appear in the run's event
 * stream as `custom:<name>` events.
 *
 * @example
 * const steps = StreamChannel.remote<string>("steps");
 * const logger = () => ({ init: () => ({ steps }), process: (e) => { steps.push(e.method); return true; } });
 */
export class StreamChannel<T> implements AsyncIterable<T> {
  private readonly log = new EventLog<T>();
  /** Set by the run stream: forwards a remote channel's pushes as protocol events. */
  forward: ((value: T) => void) | undefined;

  constructor(readonly channelName?: string) {}

  /** A channel only readable from `run.extensions`. */
  static local<T>(): StreamChannel<T> {
    return new StreamChannel<T>();
  }

  /** A channel whose pushes are also protocol events named `custom:<name>`. */
  static remote<T>(name: string): StreamChannel<T> {
    return new StreamChannel<T>(name);
  }

  static isInstance(value: unknown): value is StreamChannel<unknown> {
    return value instanceof StreamChannel;
  }

  push(value: T): void {
    this.log.push(value);
    this.forward?.(value);
  }

  /** Ends the channel (the run stream does this when the run ends). */
  close(error?: { value: unknown }): void {
    this.log.close(error);
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return this.log[Symbol.asyncIterator]();
  }
}
