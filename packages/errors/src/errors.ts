/** Every error the platform raises on purpose carries a stable string code. */
export type ErrorCode =
  | "bad_request"
  | "params_invalid"
  | "not_found"
  | "dag_not_found"
  | "dag_run_not_found"
  | "task_instance_not_found"
  | "import_error_not_found"
  | "flow_not_found"
  | "already_exists"
  | "dag_has_import_errors"
  | "conflict"
  | "unauthenticated"
  | "forbidden"
  | "not_acceptable"
  | "method_not_allowed"
  | "rate_limited"
  | "unavailable"
  | "host_unreachable"
  | "non_retryable"
  | "internal";

export class SvcError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Field-level details safe to show to a client (never secrets). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class BadRequestError extends SvcError {
  constructor(message: string, details?: Record<string, unknown>) {
    super("bad_request", message, details);
  }
}

/** Params (DAG conf, intent params) failed the DAG's JSON Schema; `fields` names each failing field. */
export class ParamsInvalidError extends SvcError {
  constructor(
    message: string,
    readonly fields: { field: string; message: string }[],
  ) {
    super("params_invalid", message, { fields });
  }
}

export class NotFoundError extends SvcError {
  constructor(
    code: Extract<ErrorCode, "not_found" | "dag_not_found" | "dag_run_not_found" | "task_instance_not_found" | "import_error_not_found" | "flow_not_found">,
    message: string,
  ) {
    super(code, message);
  }
}

export class DagNotFoundError extends NotFoundError {
  constructor(readonly dagId: string) {
    super("dag_not_found", `DAG with dag_id: '${dagId}' not found`);
  }
}

export class DagRunNotFoundError extends NotFoundError {
  constructor(
    readonly dagId: string,
    readonly runId: string,
  ) {
    super("dag_run_not_found", `DAGRun with DAG ID: '${dagId}' and DagRun ID: '${runId}' not found`);
  }
}

export class AlreadyExistsError extends SvcError {
  constructor(message: string) {
    super("already_exists", message);
  }
}

export class DagHasImportErrorsError extends SvcError {
  constructor(
    readonly dagId: string,
    readonly filename: string,
  ) {
    super("dag_has_import_errors", `DAG '${dagId}' has import errors in ${filename}; fix the file before triggering`);
  }
}

/** The caller's role may not do this (403); `details` names what needed a higher role. */
export class ForbiddenError extends SvcError {
  constructor(message: string, details?: Record<string, unknown>) {
    super("forbidden", message, details);
  }
}

/** Too many attempts (failed logins): 429; the answer carries Retry-After. */
export class RateLimitedError extends SvcError {
  constructor(message: string) {
    super("rate_limited", message);
  }
}

export class ConflictError extends SvcError {
  constructor(message: string) {
    super("conflict", message);
  }
}

export class UnavailableError extends SvcError {
  constructor(message: string) {
    super("unavailable", message);
  }
}

export class HostUnreachableError extends SvcError {
  constructor(message: string) {
    super("host_unreachable", message);
  }
}

/** A task failure that retrying cannot fix (bad args, unknown image): the try fails without further retries. */
export class NonRetryableError extends SvcError {
  constructor(message: string) {
    super("non_retryable", message);
  }
}

export function isSvcError(e: unknown): e is SvcError {
  return e instanceof SvcError;
}
