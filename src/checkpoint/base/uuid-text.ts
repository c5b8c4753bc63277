/**
 * The text of a UUID-shaped id built from 36 character codes in one call. Joining two-digit hex
 * pieces makes a tree of string pieces (a "cons string") that is copied flat again wherever the
 * id is hashed, compared or bound; the engine makes a checkpoint id and a task id every step.
 */

/** Per byte, the codes of its two hex digits (high one in the upper 8 bits): no branch per digit. */
const PAIRS = Uint16Array.from({ length: 256 }, (_, byte) => {
  const text = byte.toString(16).padStart(2, "0");
  return (text.charCodeAt(0) << 8) | text.charCodeAt(1);
});

/** Writes `byte` (its low 8 bits) as two lowercase hex digits into `codes` at `at`. */
export function putHexByte(codes: Uint8Array, at: number, byte: number): void {
  const pair = PAIRS[byte & 0xff]!;
  codes[at] = pair >>> 8;
  codes[at + 1] = pair & 0xff;
}

/** The 36 codes of `codes` as one flat string. */
export function uuidText(c: Uint8Array): string {
  return String.fromCharCode(
    c[0]!,
    c[1]!,
    c[2]!,
    c[3]!,
    c[4]!,
    c[5]!,
    c[6]!,
    c[7]!,
    c[8]!,
    c[9]!,
    c[10]!,
    c[11]!,
    c[12]!,
    c[13]!,
    c[14]!,
    c[15]!,
    c[16]!,
    c[17]!,
    c[18]!,
    c[19]!,
    c[20]!,
    c[21]!,
    c[22]!,
    c[23]!,
    c[24]!,
    c[25]!,
    c[26]!,
    c[27]!,
    c[28]!,
    c[29]!,
    c[30]!,
    c[31]!,
    c[32]!,
    c[33]!,
    c[34]!,
    c[35]!,
  );
}

/** 36 codes with the dashes of a UUID's text in place (8, 13, 18, 23). */
export function uuidCodes(): Uint8Array {
  const codes = new Uint8Array(36);
  codes[8] = codes[13] = codes[18] = codes[23] = 0x2d;
  return codes;
}
