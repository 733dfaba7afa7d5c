export {
  SvcError,
  BadRequestError,
  ParamsInvalidError,
  NotFoundError,
  DagNotFoundError,
  DagRunNotFoundError,
  AlreadyExistsError,
  DagHasImportErrorsError,
  ConflictError,
  ForbiddenError,
  RateLimitedError,
  UnavailableError,
  HostUnreachableError,
  NonRetryableError,
  isSvcError,
} from "./errors";
export type { ErrorCode } from "./errors";
export { toProblem, statusOf } from "./problem";
