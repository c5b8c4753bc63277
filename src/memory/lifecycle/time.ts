import { KeelError } from "../../core/index.js";
import { parseWireTime } from "../models/primitives.js";

/** A point in time as the lifecycle takes it: a Date, Unix milliseconds or an ISO 8601 string. */
export type TimeInput = Date | number | string;

export const DAY_MS = 86_400_000;

/** Unix milliseconds of a time input (naive ISO strings are UTC). */
export function toMs(value: TimeInput): number {
  if (typeof value === "number") return value;
  if (value instanceof Date) return value.getTime();
  const ms = parseWireTime(value);
  if (ms === null) {
    throw new KeelError("INVALID_ARGUMENT", `"${value}" is not an ISO 8601 timestamp.`, {
      hint: "Write times as YYYY-MM-DDTHH:MM:SS with an optional offset (UTC without one).",
    });
  }
  return ms;
}

/** The ISO 8601 form Keel writes (`…Z`). */
export function toIso(value: TimeInput): string {
  return new Date(toMs(value)).toISOString();
}

/** Rounds as the reference reports (2 decimals for confidences). */
export function round(value: number, decimals: number): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}
