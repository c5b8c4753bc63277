/**
 * CLIPS 6.30's `seed` and `random`. CLIPS draws from the C library's `rand`; the recordings come
 * from CLIPS built on glibc, whose `rand` is an additive lagged-Fibonacci generator (lags 3 and
 * 31) over a state filled by a 16807 multiplicative generator, started with seed 1 when the
 * program never calls `srand`. Keel draws the same sequence, so a program prints CLIPS-on-glibc's
 * numbers; on another C library CLIPS itself prints others.
 *
 * @example
 * const r = new RandomNumbers();
 * r.command("random", []); // 1804289383, glibc's first rand() after srand(1)
 */
import { rulesRuntimeError } from "./errors.js";
import { isInteger, numberOf, type Value, VOID } from "./values.js";

/** The command names this file answers. */
export const RANDOM_COMMANDS: readonly string[] = ["seed", "random"];

const MOD31 = 2147483647;

/** One engine's generator state. */
export class RandomNumbers {
  private state: number[] = [];
  private next = 0;

  /** `print` writes the messages CLIPS prints without halting (the count, a reversed range). */
  constructor(private readonly print: (text: string) => void = () => {}) {
    this.seed(1);
  }

  /** Runs `seed`/`random`; null when `name` is neither. */
  command(name: string, args: readonly Value[]): Value | null {
    if (name === "seed") {
      if (args.length !== 1) {
        throw rulesRuntimeError("seed expects exactly 1 argument(s)", {
          clips: "[ARGACCES4] Function seed expected exactly 1 argument(s)",
        });
      }
      const v = args[0] as Value;
      if (!isInteger(v)) throw integerExpected("seed", 1);
      this.seed(v);
      return VOID;
    }
    if (name !== "random") return null;
    if (args.length > 2) {
      throw rulesRuntimeError("random expects no more than 2 argument(s)", {
        clips: "[ARGACCES4] Function random expected no more than 2 argument(s)",
      });
    }
    if (args.length === 0) return this.rand();
    // CLIPS prints these two and draws anyway, the whole range of rand.
    if (args.length === 1) {
      this.print("[MISCFUN2] Function random expected either 0 or 2 arguments\n");
      return this.rand();
    }
    const [low, high] = args as [Value, Value];
    if (!isInteger(low)) throw integerExpected("random", 1);
    if (!isInteger(high)) throw integerExpected("random", 2);
    if (low > high) {
      this.print("[MISCFUN3] Function random expected argument #1 to be less than argument #2\n");
      return this.rand();
    }
    return low + (this.rand() % (high - low + 1));
  }

  /** srand: C's unsigned int (the low 32 bits), 0 taken as 1 as glibc takes it. */
  private seed(value: number): void {
    let s = Number(BigInt.asIntN(32, BigInt(Math.trunc(numberOf(value)))));
    if (s === 0) s = 1;
    const r = [s];
    for (let i = 1; i < 31; i++) {
      // 16807 * r mod (2^31 - 1) without overflow (Schrage), on C's truncating division.
      const prev = r[i - 1] as number;
      const hi = Math.trunc(prev / 127773);
      const lo = prev % 127773;
      let word = 16807 * lo - 2836 * hi;
      if (word < 0) word += MOD31;
      r.push(word);
    }
    for (let i = 31; i < 34; i++) r.push(r[i - 31] as number);
    this.state = r.map((x) => x >>> 0);
    this.next = 34;
    // The first 310 sums are thrown away.
    for (let i = 0; i < 310; i++) this.step();
  }

  private step(): number {
    const k = this.next++;
    const v = ((this.state[k - 31] as number) + (this.state[k - 3] as number)) >>> 0;
    this.state.push(v);
    // Only the last 31 words are ever read again.
    if (this.state.length > 64) {
      this.state = this.state.slice(-31);
      this.next = 31;
    }
    return v;
  }

  private rand(): number {
    return this.step() >>> 1;
  }
}

function integerExpected(name: string, index: number): Error {
  return rulesRuntimeError(`${name} expects argument #${index} to be an integer`, {
    clips: `[ARGACCES5] Function ${name} expected argument #${index} to be of type integer`,
  });
}
