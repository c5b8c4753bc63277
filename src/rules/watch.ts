/**
 * `watch` / `unwatch` (CLIPS 6.30 watch.c): which trace messages the engine prints, and their
 * text. The engine calls these at the moments CLIPS prints them.
 */
import { rulesRuntimeError } from "./errors.js";
import { formatValue, isSymbol, type Value } from "./values.js";

/** The items CLIPS 6.30 can watch (without COOL). */
export const WATCH_ITEMS = [
  "facts",
  "rules",
  "activations",
  "focus",
  "globals",
  "statistics",
  "deffunctions",
  "compilations",
  "generic-functions",
  "methods",
  "instances",
  "slots",
  "messages",
  "message-handlers",
] as const;

export type WatchItem = (typeof WATCH_ITEMS)[number];

function isWatchItem(name: string): name is WatchItem {
  return (WATCH_ITEMS as readonly string[]).includes(name);
}

/** The items CLIPS can watch for single constructs, with the construct kind the names must be. */
const CONSTRUCT_WATCH: Partial<Record<WatchItem, string>> = {
  facts: "deftemplate",
  rules: "defrule",
  activations: "defrule",
  globals: "defglobal",
  deffunctions: "deffunction",
  "generic-functions": "defgeneric",
  methods: "defgeneric",
  instances: "defclass",
  slots: "defclass",
  "message-handlers": "defclass",
};

/** The order CLIPS 6.30's `(list-watch-items)` lists the items in. */
const LIST_ORDER: readonly WatchItem[] = [
  "facts",
  "instances",
  "slots",
  "rules",
  "activations",
  "messages",
  "message-handlers",
  "generic-functions",
  "methods",
  "deffunctions",
  "compilations",
  "statistics",
  "globals",
  "focus",
];

/** What `list-watch-items` reads of the constructs. */
export interface WatchListHost {
  modules(): readonly string[];
  /** The names of the constructs of `kind` defined in `module`, in definition order. */
  names(kind: string, module: string): readonly string[];
  exists(kind: string, name: string): boolean;
}

export class Watches {
  /** CLIPS 6.30 starts with compilations watched (it prints them only while loading a file). */
  private readonly on = new Set<string>(["compilations"]);
  /**
   * Constructs watched or not apart from their item (`(watch rules foo)`), by item and name.
   * CLIPS gives each construct its own flag, set from the item's when defined and by a
   * `(watch item)` for all: a name here is one set on its own since its item last was.
   */
  private readonly named = new Map<WatchItem, Map<string, boolean>>();

  /**
   * `(watch item [name…])` (`on` true) or `(unwatch …)`, as CLIPS 6.30's WatchCommand: the first
   * argument is the item (`all` is every item); names after it are only for the items that watch
   * single constructs (`constructKind`), and each must name one (`exists`).
   */
  set(
    items: readonly Value[],
    on: boolean,
    exists: (kind: string, name: string) => boolean = () => false,
  ): void {
    try {
      this.change(items, on, exists);
    } finally {
      this.quiet = this.named.size === 0 && this.on.size === (this.on.has("compilations") ? 1 : 0);
    }
  }

  /** True while nothing but compilations is watched (the default): {@link mayWatch}'s fast path. */
  private quiet = true;

  private change(
    items: readonly Value[],
    on: boolean,
    exists: (kind: string, name: string) => boolean,
  ): void {
    const fn = on ? "watch" : "unwatch";
    const item = items[0];
    if (!isSymbol(item ?? "")) {
      throw rulesRuntimeError(`${fn} expects a watch item, not ${formatValue(item ?? "")}`, {
        clips: `[ARGACCES5] Function ${fn} expected argument #1 to be of type symbol`,
      });
    }
    if (typeof item !== "string" || !(item === "all" || isWatchItem(item))) {
      throw rulesRuntimeError(`${fn} does not know the item ${formatValue(item ?? "")}`, {
        clips: `[ARGACCES5] Function ${fn} expected argument #1 to be of type watchable symbol`,
        hint: `Watch one of: all, ${WATCH_ITEMS.join(", ")}.`,
      });
    }
    if (items.length > 1) {
      const kind = item === "all" ? undefined : CONSTRUCT_WATCH[item];
      if (kind === undefined) {
        throw rulesRuntimeError(`${fn} ${item} takes no construct names`, {
          clips: `[ARGACCES4] Function ${fn} expected exactly 1 argument(s)`,
          hint: `Write (${fn} ${item}).`,
        });
      }
      const watched = item as WatchItem;
      items.slice(1).forEach((n, i) => {
        if (typeof n !== "string" || !exists(kind, n)) {
          throw rulesRuntimeError(`${fn} ${item}: ${formatValue(n)} is not a ${kind}`, {
            clips: `[ARGACCES5] Function ${fn} expected argument #${i + 2} to be of type ${kind}`,
          });
        }
        const names = this.named.get(watched) ?? new Map<string, boolean>();
        names.set(n, on);
        this.named.set(watched, names);
      });
      return;
    }
    const list = item === "all" ? WATCH_ITEMS : [item];
    for (const it of list) {
      if (on) this.on.add(it);
      else this.on.delete(it);
      this.named.delete(it);
    }
  }

  /**
   * False when neither `item` nor any construct of it is watched: the engine's hot paths ask
   * this first, so an unwatched activation builds no name and no trace text.
   */
  mayWatch(item: WatchItem): boolean {
    return !this.quiet && (this.on.has(item) || this.named.has(item));
  }

  /** Whether the construct `name` (its name without module) of `item` is watched. */
  watching(item: WatchItem, name: string): boolean {
    if (this.on.size === 0 && this.named.size === 0) return false;
    return this.named.get(item)?.get(name) ?? this.on.has(item);
  }

  /**
   * The flag list-watch-items shows: CLIPS 6.30 lists a rule's activations flag under `rules`
   * and its firings flag under `activations`.
   */
  private listed(item: WatchItem, name: string): boolean {
    const shown = item === "rules" ? "activations" : item === "activations" ? "rules" : item;
    return this.watching(shown, name);
  }

  /**
   * `(list-watch-items [item [name…]])`, as CLIPS 6.30's ListWatchItemsCommand: printed as it
   * goes (a name not found is an error after what came before it).
   */
  list(args: readonly Value[], host: WatchListHost, print: (text: string) => void): void {
    const flag = (on: boolean) => (on ? " = on\n" : " = off\n");
    const item = args[0];
    if (item === undefined) {
      print(LIST_ORDER.map((it) => `${it}${flag(this.on.has(it))}`).join(""));
      return;
    }
    if (typeof item !== "string" || !isSymbol(item) || !isWatchItem(item)) {
      throw rulesRuntimeError(`list-watch-items does not know the item ${formatValue(item)}`, {
        clips:
          "[ARGACCES5] Function list-watch-items expected argument #1 to be of type watchable symbol",
      });
    }
    const kind = CONSTRUCT_WATCH[item];
    if (kind === undefined && args.length > 1) {
      throw rulesRuntimeError(`list-watch-items ${item} takes no construct names`, {
        clips: "[ARGACCES4] Function list-watch-items expected exactly 1 argument(s)",
      });
    }
    print(`${item}${flag(this.on.has(item))}`);
    if (kind === undefined) return;
    if (args.length === 1) {
      for (const m of host.modules()) {
        let out = `${m}:\n`;
        for (const n of host.names(kind, m)) out += `   ${n}${flag(this.listed(item, n))}`;
        print(out);
      }
      return;
    }
    for (const [i, n] of args.slice(1).entries()) {
      if (typeof n !== "string" || !host.exists(kind, n)) {
        throw rulesRuntimeError(`list-watch-items ${item}: ${formatValue(n)} is not a ${kind}`, {
          clips: `[ARGACCES5] Function list-watch-items expected argument #${i + 2} to be of type ${kind}`,
        });
      }
      print(`${n}${flag(this.listed(item, n))}`);
    }
  }

  has(item: WatchItem): boolean {
    return this.on.size > 0 && this.on.has(item);
  }
}

/** `==> f-1     (a 1)` / `<== f-1     (a 1)`. */
export function factTrace(asserted: boolean, line: string): string {
  return `${asserted ? "==>" : "<=="} ${line}\n`;
}

/** `==> Activation 0      r: f-1` / `<== Activation …`: the agenda line after the arrow. */
export function activationTrace(added: boolean, agendaLine: string): string {
  return `${added ? "==>" : "<=="} Activation ${agendaLine}\n`;
}

/** `FIRE    1 r: f-1,f-2`: the firing's number within the run. */
export function fireTrace(n: number, rule: string, facts: string): string {
  return `FIRE ${String(n).padStart(4)} ${rule}: ${facts}\n`;
}

/** `==> Focus B from A` / `<== Focus B to A`. */
export function focusTrace(pushed: boolean, module: string, other: string | null): string {
  if (pushed) return `==> Focus ${module}${other ? ` from ${other}` : ""}\n`;
  return `<== Focus ${module}${other ? ` to ${other}` : ""}\n`;
}

/** `DFN >> f ED:2 (a 1)` as a deffunction starts, `DFN << …` as it ends. */
export function deffunctionTrace(
  begin: boolean,
  name: string,
  depth: number,
  args: Value[],
): string {
  return `DFN ${begin ? ">>" : "<<"} ${name} ED:${depth} (${args.map((a) => formatValue(a)).join(" ")})\n`;
}

/** `:== ?*g* ==> 4 <== 1`. */
export function globalTrace(name: string, now: Value, before: Value): string {
  return `:== ?*${name}* ==> ${formatValue(now)} <== ${formatValue(before)}\n`;
}

/**
 * What `(watch statistics)` prints after a run (engine.c Run): sums and maxima taken before the
 * first firing and after each. CLIPS adds its run time when its clock moved; Keel never does
 * (a time cannot be reproduced), so it prints the line CLIPS prints for an instant run.
 */
export class RunStatistics {
  private sumFacts: number;
  private maxFacts: number;
  private sumActs: number;
  private maxActs: number;
  private sumInstances: number;
  private maxInstances: number;

  constructor(start: { facts: number; instances: number; activations: number }) {
    this.sumFacts = this.maxFacts = start.facts;
    this.sumInstances = this.maxInstances = start.instances;
    this.sumActs = this.maxActs = start.activations;
  }

  add(now: { facts: number; instances: number; activations: number }): void {
    this.sumFacts += now.facts;
    this.maxFacts = Math.max(this.maxFacts, now.facts);
    this.sumInstances += now.instances;
    this.maxInstances = Math.max(this.maxInstances, now.instances);
    this.sumActs += now.activations;
    this.maxActs = Math.max(this.maxActs, now.activations);
  }

  text(fired: number): string {
    const mean = (sum: number) => Math.floor(sum / (fired + 1) + 0.5);
    return (
      `${fired} rules fired\n` +
      `${mean(this.sumFacts)} mean number of facts (${this.maxFacts} maximum).\n` +
      `${mean(this.sumInstances)} mean number of instances (${this.maxInstances} maximum).\n` +
      `${mean(this.sumActs)} mean number of activations (${this.maxActs} maximum).\n`
    );
  }
}
