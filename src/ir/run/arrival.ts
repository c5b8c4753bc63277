import { Command, END, Send } from "../../graph/index.js";
import type { ParallelAction } from "../models/index.js";
import type { BranchResult } from "./parallel.js";
import type { Transition } from "./routing.js";
import type { IrRunState } from "./run-state.js";

/** A parallel fan-out: a rule's `parallel` action or a top-level block. */
export type FanOutSpec = Pick<ParallelAction, "targets" | "join" | "strategy">;

/** What a parallel branch carries: where it joins, by which strategy, and where the run goes after. */
export interface BranchInfo {
  join: string;
  strategy: string;
  after: string;
  target: string;
}

/** The graph state of an IR run: the user's fields plus Keel's bookkeeping channels. */
export type GraphState = Record<string, unknown> & {
  __ir: IrRunState;
  __ir_transitions: Transition[];
  __ir_results: BranchResult[];
  __ir_branch?: BranchInfo;
};

/** One move of a run: from where to where, by which rule and why, with the step's update. */
export interface Arrival {
  from: string;
  /** A node id, or END. */
  to: string;
  rule: string | null;
  reason: string;
  /** The state the step started from (its user fields seed parallel branches). */
  state: GraphState;
  /** The step's update of user fields (and `__ir_results` when it consumed a join). */
  update: Record<string, unknown>;
  ir: IrRunState;
  overridden?: Transition["overridden"];
}

/** What arrivals need to know of the document's layout. */
export interface Layout {
  /** Node ids in declaration order. */
  order: readonly string[];
  indexOf(id: string): number;
  /** Top-level parallel blocks by their first target. */
  blocks: ReadonlyMap<string, FanOutSpec>;
  userState(state: GraphState): Record<string, unknown>;
}

/**
 * The one way a run moves to a node: `arrive` records the transition and goes there, unless the
 * node is the first target of a top-level parallel block, which then fans out (whatever brought
 * the run there: the start, a fall-through, a goto, a retry, an answered or timed-out interrupt,
 * the end of a block). `fanOut` sends the run to several targets at once as `Send`s.
 */
export function arrivals(layout: Layout) {
  const transitionOf = (arrival: Arrival, to: string): Transition => ({
    from: arrival.from,
    to,
    rule: arrival.rule,
    reason: arrival.reason,
    ...(arrival.overridden && arrival.overridden.length > 0
      ? { overridden: arrival.overridden }
      : {}),
  });

  const fanOut = (arrival: Arrival, spec: FanOutSpec): Command => {
    const { order, indexOf, userState } = layout;
    const last = spec.targets.map(indexOf).reduce((a, b) => Math.max(a, b), indexOf(arrival.from));
    const branch = { join: spec.join, strategy: spec.strategy, after: order[last + 1] ?? END };
    const base = {
      ...userState(arrival.state),
      ...arrival.update,
      __ir: arrival.ir,
      __ir_transitions: [],
      __ir_results: [],
    };
    return new Command({
      update: {
        ...arrival.update,
        __ir: arrival.ir,
        __ir_transitions: [transitionOf(arrival, spec.targets.join(","))],
      },
      goto: spec.targets.map(
        (target) => new Send(target, { ...base, __ir_branch: { ...branch, target } }),
      ),
    });
  };

  const arrive = (arrival: Arrival): Command => {
    const block = arrival.to === END ? undefined : layout.blocks.get(arrival.to);
    if (block) {
      return fanOut(
        { ...arrival, reason: `${arrival.reason}; into a parallel block (${block.strategy})` },
        block,
      );
    }
    return new Command({
      update: {
        ...arrival.update,
        __ir: arrival.ir,
        __ir_transitions: [transitionOf(arrival, arrival.to)],
      },
      goto: arrival.to,
    });
  };

  return { arrive, fanOut };
}

/** How the wait node and others hand a move to {@link arrivals}. */
export type Arrive = (arrival: Arrival) => Command;
