import { v4 as uuidv4, v7 as uuidv7 } from "uuid";

/** A time-ordered unique id (UUIDv7): sorts by creation time, safe as a primary key. */
export function newId(): string {
  return uuidv7();
}

/** A random unique id (UUIDv4), for values that must not reveal when they were made. */
export function newRandomId(): string {
  return uuidv4();
}
