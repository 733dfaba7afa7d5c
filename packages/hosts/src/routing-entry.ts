// @svc/hosts/routing: the worker's host routing (SSH executors per host, the health monitor).
export { createHostRouting } from "./routing/create-host-routing";
