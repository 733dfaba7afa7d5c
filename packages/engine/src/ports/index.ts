// The engine's ports: what operators and host routers implement and the worker runs. A light
// entry (`@svc/engine/ports`): types only, none of the engine's runtime. The built-in operators
// (@svc/engine/operators) are the engine's own and reschedule through ./reschedule directly.
export type { LogStream, Operator, OperatorContext, OperatorHost, OperatorRegistry, DagRunsPort, RunView } from "./operator";
export type { HostRouting, HostStatus, RouteDecision, RouteRequest } from "./host-routing";
