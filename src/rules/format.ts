/**
 * CLIPS's `format`: a C printf control string (`%d %f %e %g %s %x %o %c`, flags, width and
 * precision) plus CLIPS's `%n` (newline), `%r` (carriage return) and `%%`.
 */
import { rulesRuntimeError } from "./errors.js";
import {
  formatFloat,
  formatValue,
  isInteger,
  isNumber,
  isString,
  numberOf,
  type Value,
} from "./values.js";

const DIRECTIVE = /%([-+ #0]*)(\d*)(?:\.(\d+))?([a-zA-Z%])/g;

/** The text `(format <router> control args…)` produces. */
export function formatText(control: string, args: readonly Value[]): string {
  let next = 0;
  const arg = (letter: string): Value => {
    const v = args[next++];
    if (v === undefined) {
      throw rulesRuntimeError(`format has no argument for %${letter}`, {
        clips: "[IOFUN2] Insufficient arguments for format",
      });
    }
    return v;
  };
  return control.replace(
    DIRECTIVE,
    (whole, flags: string, width: string, prec: string | undefined, letter: string) => {
      switch (letter) {
        case "%":
          return "%";
        case "n":
          return "\n";
        case "r":
          return "\r";
        case "t":
          return "\t";
        case "d":
        case "x":
        case "o":
        case "c": {
          const v = arg(letter);
          if (!isNumber(v)) throw notNumber(letter);
          const n = Math.trunc(numberOf(v));
          if (letter === "c") return pad(String.fromCharCode(n), flags, width);
          const body =
            letter === "d" ? String(Math.abs(n)) : Math.abs(n).toString(letter === "x" ? 16 : 8);
          return signed(body, n < 0, flags, width);
        }
        case "f":
        case "e":
        case "g": {
          const v = arg(letter);
          if (!isNumber(v)) throw notNumber(letter);
          const x = numberOf(v);
          const p = prec === undefined ? 6 : Number(prec);
          return signed(
            cFloat(Math.abs(x), letter, p, flags.includes("#")),
            x < 0 || Object.is(x, -0),
            flags,
            width,
          );
        }
        case "s": {
          const v = arg(letter);
          let text = isString(v)
            ? v.value
            : isInteger(v) || !isNumber(v)
              ? formatValue(v, true)
              : formatFloat(numberOf(v));
          if (prec !== undefined) text = text.slice(0, Number(prec));
          return pad(text, flags, width);
        }
        default:
          return whole;
      }
    },
  );
}

function notNumber(letter: string): Error {
  return rulesRuntimeError(`format's %${letter} expects a number`, {
    clips: "[IOFUN1] Illegal format argument",
  });
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
