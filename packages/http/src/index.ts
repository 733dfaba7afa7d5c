// HTTP plumbing shared by the services' express apps.
export { ANONYMOUS, TOKEN_PRINCIPAL, actorOf, authConfigured, isAuthorized, principalOf, requireAuth, safeEqual } from "./auth";
export type { AuthSettings } from "./auth";
export { errorHandler, notFoundHandler, sendProblem } from "./problem";
export { parseInput } from "./validate";
export { decideListen, resolveListenHost } from "./listen-policy";
export type { ListenConfig, ListenDecision } from "./listen-policy";
export { AUTH_SECURITY, openApiSchema, tidyJsonSchema } from "./openapi";
