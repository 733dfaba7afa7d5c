// Light entry (`@svc/http/roles`): the table of who may do what, without express, for the packages
// that decide who may answer or approve a flow (@svc/flows) as the routes and the MCP tools do.
export { ACTION_ROLES } from "./action-roles";
