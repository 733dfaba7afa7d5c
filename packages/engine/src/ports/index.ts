// The engine's ports: what operators and host routers implement and the worker runs. A light
// entry (`@svc/engine/ports`): types and RescheduleTry only, none of the engine's runtime.
export type { LogStream, Operator, OperatorContext, OperatorHost, OperatorRegistry, DagRunsPort, RunView } from "./operator";
export type { HostRouting, HostStatus, RouteDecision, RouteRequest } from "./host-routing";
export { RescheduleTry } from "./reschedule";
