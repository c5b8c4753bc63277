import { jsonString } from "../base/index.js";

/** Names whose JSON text is kept; past this the cache starts over (names are a graph's few). */
const MAX_NAMES = 4096;

const texts = new Map<string, string>();

/**
 * `jsonString(name)` for a channel or node name, made once per name: a step writes the same few
 * names into its row at every step (entries, versions seen, writes, metadata), and each fresh
 * text was two short strings allocated a name (young-generation garbage at every step).
 */
export function keyJson(name: string): string {
  let text = texts.get(name);
  if (text === undefined) {
    if (texts.size >= MAX_NAMES) texts.clear();
    text = jsonString(name);
    texts.set(name, text);
  }
  return text;
}
