import picocolors from "picocolors";

const paints = picocolors.createColors(true);

/**
 * Whether to colour output, decided at each call rather than once when the module loads (as
 * picocolors' default export does): `NO_COLOR` and `FORCE_COLOR` set by the caller — or by a
 * program that runs the CLI in its own process — take effect, and piped output (a script, CI)
 * stays plain unless forced.
 */
export function colourful(): boolean {
  const { env } = process;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0") return true;
  return process.stdout.isTTY === true && env.TERM !== "dumb";
}

type Paint = (text: string) => string;

function paint(name: "bold" | "dim" | "red" | "green" | "yellow"): Paint {
  return (text) => (colourful() ? paints[name](text) : text);
}

/** The CLI's colours: plain text unless the terminal (or FORCE_COLOR) asks for them. */
export const pc = {
  bold: paint("bold"),
  dim: paint("dim"),
  red: paint("red"),
  green: paint("green"),
  yellow: paint("yellow"),
};
