import { randomFillSync } from "node:crypto";
import { v4 as uuidv4 } from "uuid";

/** Random bytes one id takes: 4 seed a new millisecond's counter, 6 fill the tail. */
const BYTES_PER_ID = 10;
/** Ids per refill of the pool: one call into the CSPRNG per 256 ids instead of one per id. */
const POOL_IDS = 256;
const pool = Buffer.alloc(BYTES_PER_ID * POOL_IDS);
let poolOffset = pool.length;

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/** The last id's millisecond and 32-bit counter: ids made in one process only ever increase. */
let lastMs = Number.NEGATIVE_INFINITY;
let counter = 0;
/** The first two groups of ids made in `lastMs`. */
let timePrefix = "";

function setMillisecond(ms: number): void {
  lastMs = ms;
  const time = ms.toString(16).padStart(12, "0");
  timePrefix = `${time.slice(0, 8)}-${time.slice(8)}-`;
}

/**
 * A time-ordered unique id (UUIDv7, RFC 9562): sorts by creation time, safe as a primary key.
 * Within a millisecond, and if the clock steps back, a 32-bit counter (seeded at random for each
 * new millisecond, method 1 of RFC 9562 §6.2) keeps every id of this process greater than the one
 * before; 42 more random bits follow it. The random bytes come from the CSPRNG in batches.
 */
export function newId(): string {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const r = poolOffset;
  poolOffset += BYTES_PER_ID;
  const now = Date.now();
  if (now > lastMs) {
    setMillisecond(now);
    // 31 bits, so the counter has room to count up within the millisecond.
    counter = pool.readUInt32BE(r) >>> 1;
  } else {
    counter = (counter + 1) >>> 0;
    if (counter === 0) setMillisecond(lastMs + 1);
  }
  const c = counter;
  return (
    timePrefix +
    `${HEX[0x70 | (c >>> 28)]}${HEX[(c >>> 20) & 0xff]}-` +
    `${HEX[0x80 | ((c >>> 14) & 0x3f)]}${HEX[(c >>> 6) & 0xff]}-` +
    `${HEX[((c << 2) & 0xfc) | ((pool[r + 4] as number) & 0x03)]}` +
    `${HEX[pool[r + 5] as number]}${HEX[pool[r + 6] as number]}${HEX[pool[r + 7] as number]}` +
    `${HEX[pool[r + 8] as number]}${HEX[pool[r + 9] as number]}`
  );
}

/** A random unique id (UUIDv4), for values that must not reveal when they were made. */
export function newRandomId(): string {
  return uuidv4();
}
