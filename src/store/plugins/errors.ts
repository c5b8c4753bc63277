import { KeelError, type KeelErrorOptions } from "../../core/index.js";

/** A KV key that is empty, not a string, or longer than 256 UTF-8 bytes. */
export class KvKeyInvalidError extends KeelError {
  constructor(message: string, options: KeelErrorOptions = {}) {
    super("KV_KEY_INVALID", message, options);
  }
}

/** A KV value that cannot be JSON-encoded (undefined, a function, a cycle, a class instance…). */
export class KvValueNotSerializableError extends KeelError {
  constructor(message: string, options: KeelErrorOptions = {}) {
    super("KV_VALUE_NOT_SERIALIZABLE", message, options);
  }
}

/** A KV value whose JSON encoding exceeds the size limit (1 MiB). */
export class KvValueTooLargeError extends KeelError {
  constructor(message: string, options: KeelErrorOptions = {}) {
    super("KV_VALUE_TOO_LARGE", message, options);
  }
}

/** The database failed under a KV operation; the backend's error is kept as `cause` only. */
export class KvOperationFailedError extends KeelError {
  constructor(message: string, options: KeelErrorOptions = {}) {
    super("KV_OPERATION_FAILED", message, options);
  }
}

/** A query from a dedicated-storage plugin that the scoped connection refuses. */
export class ScopedDbViolationError extends KeelError {
  /** Which protection refused it, e.g. `foreign-table`, `ddl`, `attach`, `pragma`. */
  readonly rule: string;
  constructor(rule: string, message: string, options: KeelErrorOptions = {}) {
    super("SCOPED_DB_VIOLATION", message, { ...options, details: { rule, ...options.details } });
    this.rule = rule;
  }
}

/** A plugin migration statement refused by DDL validation, naming the rule it breaks. */
export class PluginForbiddenSqlError extends KeelError {
  readonly rule: string;
  constructor(rule: string, message: string, options: KeelErrorOptions = {}) {
    super("PLUGIN_FORBIDDEN_SQL", message, { ...options, details: { rule, ...options.details } });
    this.rule = rule;
  }
}
