import type { Db } from "@svc/db";
import { NonRetryableError } from "@svc/errors";
import { createHostInventory } from "../inventory";
import { LOCAL_HOST } from "../names";
import { describePlacement, place, type PlacementHost, type Weigher } from "../place";
import { placementRequestOf } from "../view/placement-over";
import type { HostRecord } from "../types";
import { vmCreations, type Creation } from "./creations";
import type { RouteDecision, RouteRequest } from "./types";
import { vmsNamedBy } from "./vm-of";
import { cloudPlacementHost, freshness, holdersOf, unseenLoad, placementPolicy, withLoad, type Holder } from "./where";

/** Options of the router: probes older than `maxProbeAgeMs` count as down for placement. */
export interface RouterOptions {
  db: Db;
  maxProbeAgeMs: number;
  weigher: Weigher;
}

const list = (xs: readonly string[]) => xs.join(", ");
const holderText = (hs: readonly Holder[]) => hs.map((h) => `${h.host}: ${h.why}`).join("; ");

function downLine(r: HostRecord, maxAgeMs: number): string[] {
  const f = freshness(r, maxAgeMs);
  return f.up ? [] : [`host '${r.name}' is down (${f.reason}): the try waits in its queue until a worker serving it finds it up`];
}

/** Placement among the inventory, creations its probes do not show yet counted; throws with every host's reasons when none fits. */
function placeVm(name: string, args: Record<string, unknown>, records: HostRecord[], creations: Creation[], o: RouterOptions): RouteDecision {
  const request = placementRequestOf(args);
  const load: string[] = [];
  const hosts: PlacementHost[] = records.map((r) => {
    const cloud = cloudPlacementHost(r);
    if (cloud) return cloud;
    const f = freshness(r, o.maxProbeAgeMs);
    const policy = placementPolicy(r);
    if (!f.up) return { ...policy, capacity: null, down_reason: f.reason };
    const l = unseenLoad(r.name, r.last_probe, creations);
    if (l.count) load.push(`  ${r.name}: ${l.count} VM(s) created there and not in its probe yet counted: ${l.memoryMb} MiB, ${l.cpus} vCPUs, ${l.diskGb} GB`);
    return { ...policy, capacity: withLoad(r.last_probe!, l) };
  });
  const p = place(request, hosts, o.weigher);
  if (!p.host) throw new NonRetryableError(`no host fits VM ${name}: ${p.verdicts.map((v) => `${v.host}: ${v.reasons.join(", ")}`).join("; ")}`);
  const disks = request.disksGb.length ? `disks [${request.disksGb.join(", ")}] GB` : "no extra disks";
  const asked = `VM '${name}' asks ${request.memoryMb} MiB, ${request.cpus} vCPUs, ${disks}${request.image ? `, image '${request.image}'` : ""}`;
  return { host: p.host, lines: [asked, ...describePlacement(p), ...load] };
}

/** vm_create: the host already holding the name (idempotent create), the pinned host, else placement. */
function routeCreate(req: RouteRequest, pinned: HostRecord | undefined, records: HostRecord[], creations: Creation[], o: RouterOptions): RouteDecision {
  const name = String(req.args.name);
  const holders = holdersOf(name, records, creations);
  if (holders.length > 1) throw new NonRetryableError(`VM '${name}' is on several hosts (${holderText(holders)}); a VM name must be unique across the hosts`);
  const held = holders[0];
  if (held && pinned && pinned.name !== held.host) {
    throw new NonRetryableError(
      `VM '${name}' already exists on host '${held.host}' (${held.why}), the task pins host '${pinned.name}': a VM name is unique across the hosts (pin '${held.host}' or choose another name)`,
    );
  }
  if (held) {
    const r = records.find((x) => x.name === held.host);
    return { host: held.host, lines: [`VM '${name}' is on host '${held.host}' (${held.why}): creating it there again is idempotent`, ...(r ? downLine(r, o.maxProbeAgeMs) : [])] };
  }
  if (pinned) {
    // A provider or region the request asks for is never dropped in favour of the pinned host.
    const asked = placementRequestOf(req.args);
    const policy = placementPolicy(pinned);
    const wrong = [
      ...(asked.provider && asked.provider !== (policy.provider ?? "libvirt") ? [`provider ${policy.provider ?? "libvirt"}, not ${asked.provider}`] : []),
      ...(asked.region && asked.region !== policy.region ? [policy.region ? `region ${policy.region}, not ${asked.region}` : `no region, not ${asked.region}`] : []),
    ];
    if (wrong.length)
      throw new NonRetryableError(`VM '${name}': the task pins host '${pinned.name}', which is not what it asks (${wrong.join(", ")}); pin another host or drop host`);
    if (pinned.state === "draining") throw new NonRetryableError(`host '${pinned.name}' is draining: it takes no new VMs (svc-hosts activate ${pinned.name})`);
    return { host: pinned.name, lines: [`host '${pinned.name}' pinned by the task's host arg`, ...downLine(pinned, o.maxProbeAgeMs)] };
  }
  return placeVm(name, req.args, records, creations, o);
}

/** Any other host-scoped operator: the pinned host, else the host holding the VM it names, else `local`. */
function routeByVm(req: RouteRequest, pinned: HostRecord | undefined, records: HostRecord[], creations: Creation[], o: RouterOptions): RouteDecision {
  if (pinned) return { host: pinned.name, lines: [`host '${pinned.name}' pinned by the task's host arg`, ...downLine(pinned, o.maxProbeAgeMs)] };
  const named = vmsNamedBy(req.operator, req.args);
  if (named.length === 0) return { host: LOCAL_HOST, lines: [`${req.operator} names no VM: host '${LOCAL_HOST}'`] };
  for (const vm of named) {
    const holders = holdersOf(vm.name, records, creations);
    if (holders.length > 1) throw new NonRetryableError(`VM '${vm.name}' is on several hosts (${holderText(holders)}): give the task a host arg`);
    const held = holders[0];
    if (!held) continue;
    const r = records.find((x) => x.name === held.host);
    return { host: held.host, lines: [`VM '${vm.name}' (arg ${vm.field}) is on host '${held.host}' (${held.why})`, ...(r ? downLine(r, o.maxProbeAgeMs) : [])] };
  }
  const which = named.map((v) => `'${v.name}' (arg ${v.field})`).join(", ");
  return { host: LOCAL_HOST, lines: [`VM ${which} is on no host per their last probes: host '${LOCAL_HOST}'`] };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The vm_create a try is routed as: its own args for vm_create; for a host_check with `place` (a
 * DAG's placement step, whose output's host its later steps follow), the VM it places (the
 * check's own host arg still pins it). Any other try: undefined.
 */
function creationOf(req: RouteRequest): RouteRequest | undefined {
  if (req.operator === "vm_create") return req;
  if (req.operator !== "host_check" || !isRecord(req.args.place)) return undefined;
  return { ...req, args: req.args.place };
}

/**
 * The router: a try's `host` arg (checked against the inventory), the host holding the VM it
 * names, or placement for a new VM (a vm_create, or a host_check with `place`). A single-host
 * install (only `local`) routes to `local` as before, without lines.
 */
export function createRouter(o: RouterOptions): (req: RouteRequest) => Promise<RouteDecision> {
  const inv = createHostInventory(o.db);
  return async (req) => {
    const records = await inv.list();
    const host = typeof req.args.host === "string" ? req.args.host : undefined;
    if (records.every((r) => r.name === LOCAL_HOST) && (host === undefined || host === LOCAL_HOST)) return { host: LOCAL_HOST, lines: [] };
    const pinned = host === undefined ? undefined : records.find((r) => r.name === host);
    if (host !== undefined && !pinned) throw new NonRetryableError(`host '${host}' is not in the inventory (known hosts: ${list(records.map((r) => r.name))})`);
    const creations = await vmCreations(o.db, req);
    const creation = creationOf(req);
    return creation ? routeCreate(creation, pinned, records, creations, o) : routeByVm(req, pinned, records, creations, o);
  };
}
