/**
 * Thrown by a tool handler to say the call failed and its effect certainly did not happen (the
 * request was refused, validation failed on the other side, nothing was sent). The ledger then
 * records `failed`. Any other error from a tool with effects leaves the effect in doubt and is
 * recorded `unknown`: a transport failure is never taken for a success or a clean failure.
 *
 * @example
 * if (response.status === 422) throw new ToolFailure("REJECTED", "the API refused the payload");
 */
export class ToolFailure extends Error {
  readonly code: string;
  readonly retryable: boolean;
  readonly details: Record<string, unknown>;

  constructor(
    code: string,
    message: string,
    options: { retryable?: boolean; details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "ToolFailure";
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.details = options.details ?? {};
  }
}
