import type { Db } from "@svc/db";
import { BadRequestError, ConflictError, HostUnreachableError } from "@svc/errors";
import { firstContactKey, hostExecutor, type HostTarget } from "./connect";
import { createHostInventory, type HostInventory } from "./inventory";
import { LOCAL_HOST, newHostSchema, type NewHostInput } from "./names";
import { place, type Placement, type PlacementHost, type PlacementRequest, type Weigher } from "./place";
import { probeHost, type ProbeTarget } from "./probe";
import type { HostRecord, ProbeResult } from "./types";

/** Dependencies of the host service; `probe` is replaceable for tests of the bookkeeping. */
export interface HostServiceDeps {
  db: Db;
  probe?: (h: ProbeInput) => Promise<ProbeResult>;
  firstContact?: (h: HostTarget) => Promise<string>;
}

/** Options of add: `probe: false` records the host without contacting it (then it has no pinned key unless given). */
export interface AddOptions {
  probe?: boolean;
  actor: string;
}

/** A host with the outcome of the probe made for this answer, if one was. */
export type ProbedHost = HostRecord & { up: boolean | null };

/** What a probe needs: where the host is, its pinned key, its libvirt URI and directories. */
export type ProbeInput = HostTarget & ProbeTarget & Pick<HostRecord, "host_key">;

/** Probe a host with its pinned key over its own executor. */
export async function probeRecord(h: ProbeInput): Promise<ProbeResult> {
  let ex;
  try {
    ex = hostExecutor(h);
  } catch (e) {
    return { up: false, error: (e as Error).message };
  }
  try {
    return await probeHost(ex, h);
  } finally {
    await ex.close();
  }
}

/** The operations of svc-hosts and the REST API on the inventory. */
export function createHostService(deps: HostServiceDeps) {
  const inv: HostInventory = createHostInventory(deps.db);
  const probe = deps.probe ?? probeRecord;
  const firstContact = deps.firstContact ?? ((h: HostTarget) => firstContactKey(h));

  const refresh = async (h: HostRecord): Promise<ProbedHost> => {
    const r = await probe(h);
    await inv.saveProbe(h.name, r.up ? { capacity: r.capacity } : { error: r.error });
    return { ...(await inv.get(h.name)), up: r.up };
  };

  return {
    inventory: inv,
    async list(o: { probe?: boolean } = {}): Promise<ProbedHost[]> {
      const hosts = await inv.list();
      return o.probe ? Promise.all(hosts.map(refresh)) : hosts.map((h) => ({ ...h, up: null }));
    },
    async info(name: string, o: { probe?: boolean } = {}): Promise<ProbedHost> {
      const h = await inv.get(name);
      return o.probe ? refresh(h) : { ...h, up: null };
    },
    /** Add a host: pin its key on first contact (or take the one given), probe it, then record it. */
    async add(input: NewHostInput, o: AddOptions): Promise<ProbedHost> {
      const parsed = newHostSchema.safeParse(input);
      if (!parsed.success) throw new BadRequestError(parsed.error.issues.map((i) => `${i.path.join(".") || "host"}: ${i.message}`).join("; "));
      const h = parsed.data;
      if (h.name === LOCAL_HOST) throw new BadRequestError("'local' is made from the settings of the stack (SVC_SSH_*), not added");
      if (await inv.find(h.name)) throw new ConflictError(`host '${h.name}' is already in the inventory`);
      if (o.probe === false) return { ...(await inv.insert({ ...h, host_key: h.host_key ?? null }, o.actor)), up: null };
      let hostKey = h.host_key;
      if (!hostKey) {
        try {
          hostKey = await firstContact(h);
        } catch (e) {
          throw new HostUnreachableError(`host '${h.name}' (${h.ssh_user}@${h.address}:${h.port}) cannot be reached, nothing recorded: ${(e as Error).message}`);
        }
      }
      const r = await probe({ ...h, host_key: hostKey });
      if (!r.up) throw new HostUnreachableError(`host '${h.name}' did not answer the probe, nothing recorded: ${r.error}`);
      await inv.insert({ ...h, host_key: hostKey }, o.actor);
      await inv.saveProbe(h.name, { capacity: r.capacity });
      return { ...(await inv.get(h.name)), up: true };
    },
    drain: (name: string, actor: string) => inv.setState(name, "draining", actor),
    activate: (name: string, actor: string) => inv.setState(name, "active", actor),
    /** Pin the key the host presents now (or the one given), after the operator checked it. */
    async pin(name: string, o: { hostKey?: string; actor: string }): Promise<HostRecord> {
      const h = await inv.get(name);
      const key = o.hostKey ? newHostSchema.shape.host_key.parse(o.hostKey) : await firstContact(h);
      return inv.setHostKey(name, key!, o.actor);
    },
    /**
     * Remove a host: never `local`; refused while it holds VMs svc made (counted by a probe, from
     * the domains' metadata); refused when it cannot be probed unless `force` (svc cannot tell).
     */
    async remove(name: string, o: { force?: boolean; actor: string }): Promise<{ removed: string; vm_count: number | null }> {
      if (name === LOCAL_HOST) throw new ConflictError("host 'local' is the host the stack runs on and cannot be removed (drain it instead)");
      const h = await refresh(await inv.get(name));
      if (h.up && h.last_probe) {
        const mine = h.last_probe.vms.filter((v) => v.svc).map((v) => v.name);
        if (mine.length) throw new ConflictError(`host '${name}' holds ${mine.length} VM(s) svc made (${mine.join(", ")}): delete them first`);
      } else if (!o.force) {
        throw new ConflictError(`host '${name}' cannot be probed (${h.probe_error ?? "unknown"}), so svc cannot tell whether it holds VMs; --force removes it anyway`);
      }
      await inv.remove(name, o.actor);
      return { removed: name, vm_count: h.up ? (h.last_probe?.vm_count ?? 0) : null };
    },
    /** Where a VM would go now: probes every host, then place(). */
    async placement(request: PlacementRequest, weigher: Weigher = "spread"): Promise<Placement> {
      const hosts = await Promise.all((await inv.list()).map(refresh));
      const view: PlacementHost[] = hosts.map((h) => ({ ...h, capacity: h.up ? h.last_probe : null, ...(h.up ? {} : { down_reason: h.probe_error ?? "unreachable" }) }));
      return place(request, view, weigher);
    },
  };
}

export type HostService = ReturnType<typeof createHostService>;
