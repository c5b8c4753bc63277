/**
 * CLIPS's `format`: a C printf control string (`%d %f %e %g %s %x %o %u %c`, `-`, width and
 * precision) plus CLIPS's `%n` (newline), `%r` (carriage return), `%t`, `%v` and `%%`.
 */
import { rulesRuntimeError } from "./errors.js";
import {
  isInstanceName,
  isInteger,
  isNumber,
  isString,
  isSymbol,
  numberOf,
  type Value,
} from "./values.js";

/** One piece of a control string, as CLIPS's FindFormatFlag reads it. */
type Piece =
  | { kind: "text"; text: string }
  | { kind: "conv"; spec: string; letter: string }
  | { kind: "invalid"; spec: string };

const NO_ARGUMENT: Readonly<Record<string, string>> = {
  n: "\n",
  r: "\r",
  t: "\t",
  v: "\v",
  "%": "%",
};

/**
 * Splits a control string as CLIPS 6.30 does (iofun.c): after `%`, digits, `.` and `-` until a
 * conversion letter (`d o x u c s e f g`); any other character makes the flag invalid; a flag
 * the next `%` or the end cuts short is printed as written.
 */
function pieces(control: string): Piece[] {
  const out: Piece[] = [];
  let i = 0;
  while (i < control.length) {
    if (control[i] !== "%") {
      const at = control.indexOf("%", i);
      const end = at < 0 ? control.length : at;
      out.push({ kind: "text", text: control.slice(i, end) });
      i = end;
      continue;
    }
    i++;
    const fixed = NO_ARGUMENT[control[i] ?? ""];
    if (fixed !== undefined) {
      out.push({ kind: "text", text: fixed });
      i++;
      continue;
    }
    let spec = "%";
    let piece: Piece | null = null;
    while (i < control.length && control[i] !== "%") {
      const ch = control[i++] as string;
      if ("doxucsefg".includes(ch)) {
        piece = { kind: "conv", spec, letter: ch };
        break;
      }
      spec += ch;
      if (!/[0-9.-]/.test(ch)) {
        piece = { kind: "invalid", spec };
        break;
      }
    }
    out.push(piece ?? { kind: "text", text: spec });
  }
  return out;
}

/** The text `(format <router> control args…)` produces, with CLIPS 6.30's checks and messages. */
export function formatText(control: string, args: readonly Value[]): string {
  const parts = pieces(control);
  let wanted = 0;
  for (const p of parts) {
    if (p.kind === "invalid") {
      throw rulesRuntimeError(`format flag ${p.spec} is not valid`, {
        clips: `[IOFUN3] Invalid format flag "${p.spec}" specified in format function.`,
      });
    }
    if (p.kind === "conv") wanted++;
  }
  if (wanted !== args.length) {
    throw rulesRuntimeError(`format's control string takes ${wanted} argument(s)`, {
      clips: `[ARGACCES4] Function format expected exactly ${wanted + 2} argument(s)`,
    });
  }
  let next = 0;
  let out = "";
  for (const p of parts) {
    if (p.kind === "text") out += p.text;
    else if (p.kind === "conv")
      out += conversion(p.spec, p.letter, args[next] as Value, next++ + 3);
  }
  return out;
}

function typeError(which: number, type: string): Error {
  return rulesRuntimeError(`format's argument #${which} must be of type ${type}`, {
    clips: `[ARGACCES5] Function format expected argument #${which} to be of type ${type}`,
  });
}

/** One conversion: `spec` is `%` with its `-`, digits and `.` (C's printf reads them). */
function conversion(spec: string, letter: string, v: Value, which: number): string {
  const m = /^%(-*)(0*)(\d*)(?:\.(\d*))?$/.exec(spec);
  const flags = `${m?.[1] ?? ""}${m?.[2] ?? ""}`;
  const width = m?.[3] ?? "";
  const prec = m?.[4];
  switch (letter) {
    case "s": {
      if (!isSymbol(v) && !isString(v) && !isInstanceName(v))
        typeErrorThrow(which, "symbol or string");
      let text = isString(v) ? v.value : isInstanceName(v) ? v.name : String(v);
      if (prec !== undefined) text = text.slice(0, Number(prec || 0));
      return pad(text, flags, width);
    }
    case "c": {
      if (isSymbol(v) || isString(v)) {
        return pad((isString(v) ? v.value : v).slice(0, 1), flags, width);
      }
      if (!isInteger(v)) typeErrorThrow(which, "symbol, string, or integer");
      return pad(String.fromCharCode(Number(v) & 0xff), flags, width);
    }
    case "d":
    case "x":
    case "o":
    case "u": {
      if (!isNumber(v)) typeErrorThrow(which, "integer or float");
      const n = Math.trunc(numberOf(v));
      const body =
        letter === "x" || letter === "o"
          ? Math.abs(n).toString(letter === "x" ? 16 : 8)
          : String(Math.abs(n));
      return signed(body, n < 0, flags, width);
    }
    default: {
      if (!isNumber(v)) typeErrorThrow(which, "integer or float");
      const x = numberOf(v);
      const p = prec === undefined ? 6 : Number(prec || 0);
      return signed(cFloat(Math.abs(x), letter, p, false), x < 0 || Object.is(x, -0), flags, width);
    }
  }
}

function typeErrorThrow(which: number, type: string): never {
  throw typeError(which, type);
}

function pad(text: string, flags: string, width: string): string {
  const w = Number(width || 0);
  if (text.length >= w) return text;
  return flags.includes("-") ? text.padEnd(w) : text.padStart(w);
}

function signed(body: string, negative: boolean, flags: string, width: string): string {
  const sign = negative ? "-" : flags.includes("+") ? "+" : flags.includes(" ") ? " " : "";
  const w = Number(width || 0);
  if (flags.includes("0") && !flags.includes("-") && sign.length + body.length < w) {
    return sign + body.padStart(w - sign.length, "0");
  }
  return pad(sign + body, flags, width);
}

/** C's %f, %e and %g of a non-negative number. */
function cFloat(x: number, letter: string, p: number, alt: boolean): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? "nan" : "inf";
  if (letter === "f") return x.toFixed(p);
  if (letter === "e") return exp(x, p);
  const precision = p === 0 ? 1 : p;
  const e = x === 0 ? 0 : Number(x.toExponential(precision - 1).split("e")[1]);
  let out = e < -4 || e >= precision ? exp(x, precision - 1) : x.toFixed(precision - 1 - e);
  if (!alt) {
    out = out.includes("e")
      ? out.replace(/\.?0+e/, "e")
      : out.includes(".")
        ? out.replace(/\.?0+$/, "")
        : out;
  }
  return out;
}

function exp(x: number, p: number): string {
  const [mantissa, e] = x.toExponential(p).split("e") as [string, string];
  const n = Number(e);
  return `${mantissa}e${n < 0 ? "-" : "+"}${String(Math.abs(n)).padStart(2, "0")}`;
}
