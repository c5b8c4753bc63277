import type { Interrupt } from "../errors.js";
import { type InterruptScope, interruptId } from "../interrupt.js";
import type { NodeSpec } from "./spec.js";

/** Four independent 32-bit FNV-1a-style lanes over the UTF-16 code units of `text`. */
function hash128(text: string): [number, number, number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  let c = 0x9e3779b9;
  let d = 0x85ebca6b;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
    c = Math.imul(c ^ code, 0x27d4eb2f);
    d = Math.imul(d ^ code, 0x165667b1);
  }
  // Final avalanche so that ids of similar inputs differ in every digit.
  a = Math.imul(a ^ (b >>> 15), 0x85ebca6b) ^ d;
  b = Math.imul(b ^ (c >>> 13), 0xc2b2ae35) ^ a;
  c = Math.imul(c ^ (d >>> 16), 0x27d4eb2f) ^ b;
  d = Math.imul(d ^ (a >>> 15), 0x165667b1) ^ c;
  return [a >>> 0, b >>> 0, c >>> 0, d >>> 0];
}

const hex8 = (n: number) => n.toString(16).padStart(8, "0");

/**
 * The deterministic id of a task: the same checkpoint, namespace, step and node (or `Send`
 * position) always give the same id, which is how a resumed run finds the writes of tasks that
 * already finished. Shaped like a UUID; a fast non-cryptographic hash is enough because ids only
 * need to be distinct among the tasks of one checkpoint, and the checkpoint id is part of the input.
 */
export function taskIdFor(
  checkpointId: string,
  ns: string,
  step: number,
  kind: "pull" | "push",
  name: string,
  pushIndex: number,
): string {
  const [a, b, c, d] = hash128(`${checkpointId}|${ns}|${step}|${kind}|${name}|${pushIndex}`);
  const h = hex8(a) + hex8(b) + hex8(c) + hex8(d);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** One node execution in a super-step; also the scope `interrupt()` reads. */
export class Task implements InterruptScope {
  /** Channel indices written, in order (parallel to `writeValues`). */
  readonly writeChannels: number[] = [];
  readonly writeValues: unknown[] = [];
  /** The update the node returned (what `updates` streams and metadata.writes records). */
  update: unknown = undefined;
  error: unknown = undefined;
  failed = false;
  interrupts: Interrupt[] | undefined = undefined;
  /** True when the writes came from a checkpoint's pending writes and the node was not run. */
  cached = false;
  /** Completion order within the step (updates stream in the order tasks finish). */
  doneSeq = 0;
  /** interrupt() bookkeeping. */
  resumes: unknown[] = [];
  fresh: { value: unknown } | undefined = undefined;
  calls = 0;
  private id: string | undefined;

  constructor(
    readonly node: NodeSpec,
    readonly kind: "pull" | "push",
    readonly pushIndex: number,
    readonly input: unknown,
    private readonly idSource: { checkpointId: string; ns: string; step: number },
  ) {}

  get taskId(): string {
    if (this.id === undefined) {
      this.id = taskIdFor(
        this.idSource.checkpointId,
        this.idSource.ns,
        this.idSource.step,
        this.kind,
        this.node.name,
        this.pushIndex,
      );
    }
    return this.id;
  }

  interruptIdFor(index: number): string {
    return interruptId(this.taskId, index);
  }

  get path(): [string, string | number] {
    return this.kind === "pull"
      ? ["__pregel_pull", this.node.name]
      : ["__pregel_push", this.pushIndex];
  }

  /** Forgets the writes of a failed attempt before a retry. */
  resetForRetry(): void {
    this.writeChannels.length = 0;
    this.writeValues.length = 0;
    this.update = undefined;
    this.calls = 0;
  }
}
