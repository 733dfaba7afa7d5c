import { SvcError, type ErrorCode } from "./errors";

/** Airflow-style problem JSON (RFC 7807). */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  [k: string]: unknown;
}

const TYPE_BASE = "https://svc.dev/docs/errors";

function assertNever(x: never): never {
  throw new Error(`unhandled error code ${String(x)}`);
}

/** HTTP status and title for each error code; exhaustive by construction. */
export function statusOf(code: ErrorCode): { status: number; title: string } {
  switch (code) {
    case "bad_request":
    case "params_invalid":
    case "dag_has_import_errors":
      return { status: 400, title: "Bad Request" };
    case "unauthenticated":
      return { status: 401, title: "Unauthorized" };
    case "forbidden":
      return { status: 403, title: "Forbidden" };
    case "not_found":
    case "dag_not_found":
    case "dag_run_not_found":
    case "task_instance_not_found":
    case "import_error_not_found":
    case "flow_not_found":
      return { status: 404, title: "Not Found" };
    case "method_not_allowed":
      return { status: 405, title: "Method Not Allowed" };
    case "not_acceptable":
      return { status: 406, title: "Not Acceptable" };
    case "already_exists":
    case "conflict":
      return { status: 409, title: "Conflict" };
    case "rate_limited":
      return { status: 429, title: "Too Many Requests" };
    case "unavailable":
    case "host_unreachable":
      return { status: 503, title: "Service Unavailable" };
    case "non_retryable":
    case "internal":
      return { status: 500, title: "Internal Server Error" };
    default:
      return assertNever(code);
  }
}

/** Map any thrown value to a problem; unknown errors become a 500 without leaking their message. */
export function toProblem(e: unknown, instance?: string): Problem {
  if (e instanceof SvcError) {
    const { status, title } = statusOf(e.code);
    return { type: `${TYPE_BASE}#${e.code}`, title, status, detail: e.message, ...(instance ? { instance } : {}), ...(e.details ?? {}) };
  }
  return {
    type: `${TYPE_BASE}#internal`,
    title: "Internal Server Error",
    status: 500,
    detail: "An unexpected error occurred; see the service log",
    ...(instance ? { instance } : {}),
  };
}
