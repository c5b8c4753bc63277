import { type KeelError, toKeelError } from "../core/index.js";
import { clipsMessageText, takeEvaluationError } from "./clips-messages.js";
import {
  CONSTRUCT_NAMES,
  type FactData,
  type Firing,
  type HostFunction,
  RuleEngine,
} from "./engine.js";
import { echoExtras, echoMode, errorEcho } from "./error-echo.js";
import type { RuleLimits } from "./limits.js";
import { readFormsUntilError, type SList, type SNode, type SourcePos } from "./reader.js";
import type { Value } from "./values.js";

/** What CLIPS 6.30 prints when a batch file ends without (exit) and it falls back to its prompt. */
export const CLIPS_BANNER = "         CLIPS (6.30 3/17/15)\nCLIPS> ";

export interface BatchOptions {
  /** Host functions callable from the program. */
  functions?: Record<string, HostFunction>;
  /** Standard input for read/readline (all of it, or a source of chunks); empty by default. */
  input?: string | (() => string | null);
  /** Called with each piece of output as it is printed (the result's output has it all too). */
  onOutput?: (text: string) => void;
  /**
   * Print CLIPS's banner and prompt when the file ends without `(exit)`, as `clips -f2` does
   * (default true: the transcript matches CLIPS byte for byte). `keel rules run` turns it off
   * unless asked for the exact transcript, since the prompt means nothing outside CLIPS.
   */
  banner?: boolean;
  /** Bounds on evaluation over `DEFAULT_RULE_LIMITS`. */
  limits?: Partial<RuleLimits>;
  /**
   * What an error in one top-level form does. `"continue"` (the default) is CLIPS's behaviour:
   * the form's CLIPS message is printed (when Keel knows it) and the next form runs. `"stop"`
   * ends the batch at the first error. A bound (`RULES_LIMIT`) always stops.
   */
  onError?: "continue" | "stop";
}

/** The result of running a .clp program like `clips -f2 file.clp`. */
export interface BatchResult {
  /** Exactly what `clips -f2` prints for the supported subset (up to an error, if any). */
  output: string;
  /** The rule firings, in order: the latest `maxFiringLog` of them (10,000 by default). */
  firings: Firing[];
  /** The facts at the end, in index order. */
  facts: FactData[];
  /** The first error (with `onError: "stop"` the program stopped there). */
  error?: KeelError;
  /** Every error, in order (CLIPS printed a message for each and went on). */
  errors: KeelError[];
}

/**
 * Executes the top-level forms of a .clp text as `clips -f2 file.clp < /dev/null` does.
 *
 * @example
 * runBatch("(assert (a 1))\n(facts)\n(exit)").output
 * // "f-0     (initial-fact)\nf-1     (a 1)\nFor a total of 2 facts.\n"
 */
export function runBatch(source: string, options: BatchOptions = {}): BatchResult {
  let output = "";
  const errors: KeelError[] = [];
  const engine = new RuleEngine({
    ...(options.functions ? { functions: options.functions } : {}),
    onPrint: (text) => {
      output += text;
      options.onOutput?.(text);
    },
    ...(options.input !== undefined ? { input: inputSource(options.input) } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.onError === "stop" ? {} : { onMatchError: (e) => errors.push(e) }),
  });
  // The forms before a reader error run first, as CLIPS runs each form once it has read it.
  // A stray `)` between forms is an error CLIPS reports nowhere: it skips it and reads on.
  const read = readFormsUntilError(
    source,
    options.onError === "stop" ? undefined : (e) => errors.push(toKeelError(e)),
  );
  const forms: SNode[] = read.forms;
  let stopped = false;
  const print = (text: string): void => {
    output += text;
    options.onOutput?.(text);
  };
  for (const form of forms) {
    let construct: { form: SList; module: string } | null = null;
    try {
      if (
        form.type === "list" &&
        form.items[0]?.type === "atom" &&
        CONSTRUCT_NAMES.has(form.items[0].text)
      ) {
        construct = { form, module: engine.currentModule };
        engine.defineConstruct(form);
      } else if (form.type === "list") {
        // Each top-level command has its own variables: CLIPS forgets a (bind) once it returns.
        engine.evalTopLevel(form, new Map<string, Value>());
      } else if (form.kind === "gvar") {
        // A global at top level is looked up (its value unprinted): an unknown one is an error.
        engine.globalValue(form.text);
      }
    } catch (e) {
      const failure = toKeelError(e);
      errors.push(failure);
      // CLIPS had deleted the construct of that name once it read the name (not in "stop" mode:
      // there the program ends at its first error).
      if (construct && options.onError !== "stop") {
        engine.forgetFailedRedefinition(construct.form, construct.module);
      }
      if (options.onError === "stop" || failure.code === "RULES_LIMIT") {
        stopped = true;
        break;
      }
      // CLIPS prints the message and reads the next form; where Keel does not know CLIPS's
      // wording it prints nothing (the error is still in `errors`).
      const clips = failure.details.clips;
      if (typeof clips === "string") {
        // An empty message: CLIPS printed it while evaluating (only the echo is left).
        if (clips !== "") print(clipsMessageText(clips));
        // CLIPS then echoes the construct as far as it had read it.
        const echo =
          construct &&
          errorEcho(
            construct.form,
            clips,
            errorPos(failure),
            construct.module,
            echoMode(failure.details),
            echoExtras(failure.details),
          );
        if (echo) print(echo);
      }
    }
    takeEvaluationError();
    if (engine.exited) break;
  }
  let error = errors[0];
  if (!engine.exited && read.error !== null) {
    const failure = toKeelError(read.error);
    errors.push(failure);
    error ??= failure;
    stopped = true;
  }
  if (!stopped && !engine.exited && options.banner !== false) {
    output += CLIPS_BANNER;
    options.onOutput?.(CLIPS_BANNER);
  }
  return {
    output,
    firings: [...engine.explain()],
    facts: engine.facts(),
    ...(error ? { error } : {}),
    errors,
  };
}

/** Where a RULES_PARSE error was found, from its details. */
function errorPos(e: KeelError): SourcePos | undefined {
  const { line, column } = e.details;
  return typeof line === "number" && typeof column === "number" ? { line, column } : undefined;
}

function inputSource(input: string | (() => string | null)): () => string | null {
  if (typeof input !== "string") return input;
  let given = false;
  return () => {
    if (given) return null;
    given = true;
    return input;
  };
}
