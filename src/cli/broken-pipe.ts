/**
 * `keel db dump | head` closes the pipe before keel is done writing; the write then fails with
 * EPIPE. That is the reader saying "enough", not an error: exit quietly, as `cat` does, instead
 * of crashing with a stack trace. Any other stream error is still reported.
 */
export function exitQuietlyOnBrokenPipe(stream: NodeJS.WriteStream = process.stdout): void {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
}
