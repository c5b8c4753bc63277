import type { Builtin } from "./function-args.js";
export const EXTRA_BUILTINS: [string, Builtin][] = [];
