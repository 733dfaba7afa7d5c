// HTTP plumbing shared by the services' express apps.
export { ANONYMOUS, TOKEN_PRINCIPAL, actorOf, authConfigured, authenticate, isAuthorized, principalOf, requireAuth, roleOf, safeEqual } from "./auth";
export type { AuthSettings, Principal, RequireAuthOptions, UserCredential } from "./auth";
export { LoginLimiter } from "./login-limiter";
export type { LoginAttempt, LoginLimiterOptions } from "./login-limiter";
export { hashPassword, verifyPassword } from "./passwords";
export { ROLES, defaultRolePolicy, roleAtLeast } from "./roles";
export type { Role, RolePolicy } from "./roles";
export { csrfGuard, securityHeaders } from "./edge";
export { closeHttpServer } from "./close-server";
export { createOpenStreams, STREAM_RETRY_AFTER_S } from "./open-streams";
export { requireReachable } from "./outage";
export type { OpenStreams } from "./open-streams";
export { errorHandler, notFoundHandler, sendProblem } from "./problem";
export { parseInput } from "./validate";
export { decideListen, resolveListenHost } from "./listen-policy";
export type { ListenConfig, ListenDecision } from "./listen-policy";
export { AUTH_SECURITY, openApiSchema, tidyJsonSchema } from "./openapi";
