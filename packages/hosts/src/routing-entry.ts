// @svc/hosts/routing: the worker's host routing (SSH executors per host, the health monitor) and the cloud hosts' orphan finder.
export { createHostRouting } from "./routing/create-host-routing";
export { cloudOrphansOf, ageText } from "./cloud-orphans";
export type { OrphanReport } from "./cloud-orphans";
