// @svc/hosts: the host inventory, placement and the views over them, reading Postgres only. What
// contacts hosts sits behind its own entries: `@svc/hosts/routing` (the worker's host routing,
// SSH executors) and `@svc/hosts/cli` (svc-hosts); the host service loads its SSH probe on first use.
export type { HostRecord, HostCapacity, ProbedVm } from "./types";
export { HOST_NAME, LOCAL_HOST, hostNameSchema } from "./names";
export { createHostInventory, HostNotFoundError } from "./inventory";
export type { HostInventory } from "./inventory";
export { ensureLocalHost } from "./local-host";
export { place, hostNumbers } from "./place";
export type { HostNumbers, Weigher } from "./place";
export { createHostService } from "./service";
export type { HostService } from "./service";
export type { CloudTarget } from "./routing/types";
export { freshness, hostUp, placementPolicy } from "./routing/where";
export { DEFAULT_MAX_PROBE_AGE_MS, placementOver, placementRequestOf } from "./view/placement-over";
export { createCachedHostList } from "./view/cached-list";
export type { HostList } from "./view/cached-list";
export { hostRoom, describeRoom } from "./view/room";
export type { HostRoom } from "./view/room";
export { describeFit } from "./view/fit";
export type { FitAnswer, FitQuestion } from "./view/fit";
export { planPlacement } from "./view/plan-placement";
export { hostRegion, sshFromOf } from "./providers";
export { hostView } from "./view/host-view";
export type { PlannedVm, PlacementPreview, VmPlacementPreview } from "./view/plan-placement";
