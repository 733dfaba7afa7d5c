// HTTP plumbing shared by the services' express apps.
export { actorOf, requireAuth, roleOf, safeEqual } from "./auth";
export type { AuthSettings } from "./auth";
export { LoginLimiter } from "./login-limiter";
export { hashPassword } from "./passwords";
export { ROLES, roleAtLeast } from "./roles";
export type { Role } from "./roles";
export { ACTION_ROLES, mayDo } from "./action-roles";
export type { Action } from "./action-roles";
export { allowedHostsFor, csrfGuard, hostGuard, securityHeaders } from "./edge";
export { closeHttpServer } from "./close-server";
export { createOpenStreams } from "./open-streams";
export { requireReachable } from "./outage";
export type { OpenStreams } from "./open-streams";
export { errorHandler, notFoundHandler, sendProblem } from "./problem";
export { parseInput } from "./validate";
export { resolveListenHost } from "./listen-policy";
export { AUTH_SECURITY, openApiSchema, tidyJsonSchema } from "./openapi";
