import type { CallbackManager } from "@langchain/core/callbacks/manager";
import { putHexByte, uuidCodes, uuidText } from "../../checkpoint/base/index.js";
import type { Interrupt } from "../errors.js";
import { type InterruptScope, interruptId, type TraceSibling } from "../interrupt.js";
import type { RunConfig } from "../types.js";
import type { NodeSpec } from "./spec.js";
import type { SubgraphSink } from "./subgraph-sink.js";
import type { TimedAttempt, TimeoutPolicy } from "./timeout.js";

/**
 * Four independent 32-bit FNV-1a-style lanes over UTF-16 code units, fed piece by piece (the
 * pieces of a task id are hashed as if joined by "|", without building the joined string).
 */
const lanes = new Int32Array(4);

function startLanes(): void {
  lanes[0] = 0x811c9dc5;
  lanes[1] = 0x01000193 ^ 0x5bd1e995;
  lanes[2] = 0x9e3779b9;
  lanes[3] = 0x85ebca6b;
}

function mix(text: string, separator: boolean): void {
  let a = lanes[0]!;
  let b = lanes[1]!;
  let c = lanes[2]!;
  let d = lanes[3]!;
  for (let i = separator ? -1 : 0; i < text.length; i += 1) {
    const code = i < 0 ? 0x7c /* "|" */ : text.charCodeAt(i);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
    c = Math.imul(c ^ code, 0x27d4eb2f);
    d = Math.imul(d ^ code, 0x165667b1);
  }
  lanes[0] = a;
  lanes[1] = b;
  lanes[2] = c;
  lanes[3] = d;
}

/** The final avalanche, so that ids of similar inputs differ in every digit. */
function finishLanes(): void {
  let a = lanes[0]!;
  let b = lanes[1]!;
  let c = lanes[2]!;
  let d = lanes[3]!;
  a = Math.imul(a ^ (b >>> 15), 0x85ebca6b) ^ d;
  b = Math.imul(b ^ (c >>> 13), 0xc2b2ae35) ^ a;
  c = Math.imul(c ^ (d >>> 16), 0x27d4eb2f) ^ b;
  d = Math.imul(d ^ (a >>> 15), 0x165667b1) ^ c;
  lanes[0] = a;
  lanes[1] = b;
  lanes[2] = c;
  lanes[3] = d;
}

/** The id's text, lanes 0–3 most significant byte first: 8-4-4-4-12 hex digits. */
const idCodes = uuidCodes();

function putLane(lane: number, at: number, at2: number): void {
  const value = lanes[lane]!;
  putHexByte(idCodes, at, value >>> 24);
  putHexByte(idCodes, at + 2, value >>> 16);
  putHexByte(idCodes, at2, value >>> 8);
  putHexByte(idCodes, at2 + 2, value);
}

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
  // The hash of `${checkpointId}|${ns}|${step}|${kind}|${name}|${pushIndex}`; made every step.
  startLanes();
  mix(checkpointId, false);
  mix(ns, true);
  mix(String(step), true);
  mix(kind, true);
  mix(name, true);
  mix(String(pushIndex), true);
  finishLanes();
  putLane(0, 0, 4);
  putLane(1, 9, 14);
  putLane(2, 19, 24);
  putLane(3, 28, 32);
  return uuidText(idCodes);
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
  /** True when the interrupts came from a thrown `NodeInterrupt` (no saver needed to stop). */
  nodeInterrupt = false;
  /** True when the writes came from a checkpoint's pending writes and the node was not run. */
  cached = false;
  /** Completion order within the step (updates stream in the order tasks finish). */
  doneSeq = 0;
  /** interrupt() bookkeeping. */
  resumes: unknown[] = [];
  fresh: { value: unknown } | undefined = undefined;
  calls = 0;
  /** The attempt running now (1 first) and when the first began, for `config.executionInfo`. */
  attempt = 1;
  /** The config the node was called with: what a graph it invokes without one inherits. */
  config: RunConfig | undefined = undefined;
  firstAttemptTime = 0;
  /** The parent run's subgraph stream, while a run streamed with `subgraphs: true` runs it. */
  sink: SubgraphSink | undefined = undefined;
  /** The callbacks of the task's own LangChain run, while a traced run runs it (see RunTrace). */
  callbacks: CallbackManager | undefined = undefined;
  /** A `Send`'s own timeout for this task (else the node's). */
  timeout: TimeoutPolicy | undefined = undefined;
  /** The attempt's timeout signal and progress calls, while an attempt with a timeout runs. */
  timed: TimedAttempt | undefined = undefined;
  /** Functional-API task results (see InterruptScope.memo); undefined unless an entrypoint runs. */
  memo: Record<string, unknown> | undefined = undefined;
  /** Set while a traced run runs the task (see `InterruptScope.traceSibling`). */
  traceSibling: TraceSibling | undefined = undefined;
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

  /** Gives this task the id of another (an update applied as a checkpoint's due task). */
  takeId(id: string): void {
    this.id = id;
  }

  /** The super-step this task runs in. */
  get step(): number {
    return this.idSource.step;
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

/** Tasks listed in the order nodes were added, as LangGraph.js's getState does (they run by name). */
export function byNodeOrder(tasks: Task[]): Task[] {
  return tasks.sort((a, b) =>
    a.kind === b.kind && a.kind === "pull" ? a.node.order - b.node.order : 0,
  );
}
