/**
 * A value now, or a promise of it: what a ledger write gives when it may be done at once (SQLite's
 * synchronous commits) or must wait (Postgres, a shared commit, a transaction held open).
 */
export type MaybePromise<T> = T | Promise<T>;

/**
 * `make().then(onValue, onError)` without a promise when `make` gives a value: `onValue` runs at
 * once, and a throw of `make` goes to `onError` (a throw of `onValue` does not, as with `then`).
 * A ledgered call on SQLite is synchronous from end to end, and every promise it made cost it
 * more wherever an AsyncLocalStorage's hooks are on (in every agent run).
 */
export function thenNow<T, U>(
  make: () => MaybePromise<T>,
  onValue: (value: T) => MaybePromise<U>,
  onError?: (error: unknown) => MaybePromise<U>,
): MaybePromise<U> {
  let made: MaybePromise<T>;
  try {
    made = make();
  } catch (error) {
    if (onError === undefined) throw error;
    return onError(error);
  }
  return made instanceof Promise ? made.then(onValue, onError) : onValue(made);
}

/** `thenNow` that passes the value on: `make().catch(onError)`, at once when it can be. */
export function catchNow<T>(
  make: () => MaybePromise<T>,
  onError: (error: unknown) => MaybePromise<T>,
): MaybePromise<T> {
  return thenNow(make, itself, onError);
}

function itself<T>(value: T): T {
  return value;
}
