/**
 * Maps character offsets of a text to their 1-based lines, for offsets asked in non-decreasing
 * order (as a detector meets its matches): it counts the newlines between one offset and the
 * next, so a body is scanned at most once and nothing is allocated per line.
 */
export function lineCounter(text: string): (offset: number) => number {
  let line = 1;
  // The first newline at or after the last offset asked (-1: none left).
  let next = text.indexOf("\n");
  return (offset) => {
    while (next !== -1 && next < offset) {
      line += 1;
      next = text.indexOf("\n", next + 1);
    }
    return line;
  };
}
