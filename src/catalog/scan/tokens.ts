/** Counts tokens of a text (cl100k_base, the encoding GPT-4-class models and the spec use). */
export type TokenCounter = (text: string) => number;

let loading: Promise<TokenCounter> | undefined;

/**
 * Loads the tokenizer once per process (its rank table takes a moment to build), on first use
 * only, so verbs that never tokenize never pay for it. `gpt-tokenizer` ships the encoding; no
 * download happens.
 */
export function loadTokenCounter(): Promise<TokenCounter> {
  loading ??= import("gpt-tokenizer/encoding/cl100k_base").then(
    (module) => (text: string) => (text.length === 0 ? 0 : module.countTokens(text)),
  );
  return loading;
}
