import type { Db } from "@svc/db";
import { BadRequestError, ConflictError, HostUnreachableError } from "@svc/errors";
import type { HostTarget } from "./connect";
import type * as Contact from "./contact";
import type { ProbeInput } from "./contact";
import { createHostInventory, type HostInventory } from "./inventory";
import { LOCAL_HOST, hostNameSchema, newHostSchema, type NewHostInput } from "./names";
import { apiAddress, parseBastion, parseProviderSettings, providerOf } from "./providers";
import { place, type Placement, type PlacementHost, type PlacementRequest, type Weigher } from "./place";
import type { HostRecord, ProbeResult } from "./types";

/** Dependencies of the host service; `probe` is replaceable for tests of the bookkeeping. */
export interface HostServiceDeps {
  db: Db;
  probe?: (h: ProbeInput) => Promise<ProbeResult>;
  firstContact?: (h: HostTarget) => Promise<string>;
  /** Who a cloud host's credentials are (the provider's identity call); without it cloud hosts are not probed. */
  cloudProbe?: (h: HostRecord) => Promise<CloudProbeResult>;
}

/** A cloud host's probe: the identity its credentials have, or the provider's own error. */
export type CloudProbeResult = { up: true; identity: Record<string, string> } | { up: false; error: string };

/** What an operator gives to add a cloud host (`svc-hosts add NAME --provider aws|hetzner ...`). */
export interface NewCloudHostInput {
  name: string;
  provider: string;
  /** Region, zone, subnet, security group, endpoint, credentials mode (aws); location, network, endpoint (hetzner). */
  settings: Record<string, unknown>;
  /** The private key svc reaches the instances with (its public key is given to the provider). */
  key_path: string;
  labels?: Record<string, string>;
  /** The bastion's host key (`type base64`); absent with a bastion: pinned on first contact, as `add` does for a libvirt host. */
  bastion_key?: string;
}

/** Options of add: `probe: false` records the host without contacting it (then it has no pinned key unless given). */
export interface AddOptions {
  probe?: boolean;
  actor: string;
}

/** A host with the outcome of the probe made for this answer, if one was. */
export type ProbedHost = HostRecord & { up: boolean | null; identity?: Record<string, string> };

/** The operations of svc-hosts and the REST API on the inventory. */
export function createHostService(deps: HostServiceDeps) {
  const inv: HostInventory = createHostInventory(deps.db);
  // The SSH side (the executors, the libvirt probe) loads on the first probe or first contact:
  // a process that only reads the inventory (the web UI serving pages) never loads it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy synchronous load, typed by the import above
  const contact = (): typeof Contact => require("./contact") as typeof Contact;
  const probe = deps.probe ?? ((h: ProbeInput) => contact().probeRecord(h));
  const firstContact = deps.firstContact ?? ((h: HostTarget) => contact().firstContactKey(h));

  const refresh = async (h: HostRecord): Promise<ProbedHost> => {
    if (h.provider !== "libvirt") return refreshCloud(h);
    const r = await probe(h);
    await inv.saveProbe(h.name, r.up ? { capacity: r.capacity } : { error: r.error });
    return { ...(await inv.get(h.name)), up: r.up };
  };

  /** A cloud host's identity call; its error marks the host down. The row keeps no capacity for it. */
  const refreshCloud = async (h: HostRecord): Promise<ProbedHost> => {
    if (!deps.cloudProbe) return { ...h, up: null };
    const r = await deps.cloudProbe(h).catch((e: unknown) => ({ up: false as const, error: (e as Error).message }));
    await inv.saveProbe(h.name, r.up ? { api: true } : { error: r.error });
    return { ...(await inv.get(h.name)), up: r.up, ...(r.up ? { identity: r.identity } : {}) };
  };

  /** The bastion's key: the one given, else the one it presents at first contact (the operator's act of adding trusts it). */
  const bastionKeyOf = async (name: string, bastion: string | undefined, given: string | undefined, keyPath: string, contact: boolean): Promise<string | null> => {
    if (!bastion) return null;
    if (given) return newHostSchema.shape.host_key.parse(given) ?? null;
    if (!contact) return null;
    const b = parseBastion(bastion);
    try {
      return await firstContact({ name, ssh_user: b.user, address: b.address, port: b.port, key_path: keyPath });
    } catch (e) {
      throw new HostUnreachableError(`host '${name}': its bastion ${bastion} cannot be reached, nothing recorded: ${(e as Error).message}`);
    }
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
    /**
     * Add a cloud host (a region or location of a provider): validated, recorded without creating
     * anything, then probed (who its credentials are) when a cloud probe is given and `probe` is not false.
     */
    async addCloud(input: NewCloudHostInput, o: AddOptions): Promise<ProbedHost> {
      const provider = providerOf(input.provider);
      if (typeof provider !== "string") throw new BadRequestError(provider.error);
      if (provider === "libvirt") throw new BadRequestError("a libvirt host is added with --ssh and --key, not as a cloud host");
      const settings = parseProviderSettings(provider, input.settings);
      const rest = newHostSchema.pick({ name: true, key_path: true, labels: true }).safeParse({ name: input.name, key_path: input.key_path, labels: input.labels ?? {} });
      const problems = [...("problems" in settings ? settings.problems : []), ...(rest.success ? [] : rest.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`))];
      if (problems.length || !rest.success || !("settings" in settings)) throw new BadRequestError(problems.join("; "));
      if (!hostNameSchema.safeParse(input.name).success || input.name === LOCAL_HOST) throw new BadRequestError(`'${input.name}' cannot name a cloud host`);
      if (await inv.find(input.name)) throw new ConflictError(`host '${input.name}' is already in the inventory`);
      const hostKey = await bastionKeyOf(input.name, settings.settings.bastion, input.bastion_key, rest.data.key_path, o.probe !== false);
      const row = await inv.insert(
        {
          ...newHostSchema.parse({ ...rest.data, ssh_user: "svc", ...apiAddress(provider, settings.settings) }),
          // A cloud host's own row pins its bastion's keys (it has no SSH endpoint of its own).
          host_key: hostKey,
          provider,
          provider_settings: settings.settings,
        },
        o.actor,
      );
      return o.probe === false ? { ...row, up: null } : refresh(row);
    },
    drain: (name: string, actor: string) => inv.setState(name, "draining", actor),
    activate: (name: string, actor: string) => inv.setState(name, "active", actor),
    /** Pin the key the host presents now (or the one given), after the operator checked it. */
    async pin(name: string, o: { hostKey?: string; actor: string }): Promise<HostRecord> {
      const h = await inv.get(name);
      if (h.provider !== "libvirt" && !h.provider_settings.bastion) throw new BadRequestError(`host '${name}' is a ${h.provider} host without a bastion: it has no SSH key to pin`);
      const b = h.provider !== "libvirt" ? parseBastion(h.provider_settings.bastion!) : undefined;
      const target = b ? { name, ssh_user: b.user, address: b.address, port: b.port, key_path: h.key_path } : h;
      const key = o.hostKey ? newHostSchema.shape.host_key.parse(o.hostKey) : await firstContact(target);
      return inv.setHostKey(name, key!, o.actor);
    },
    /**
     * Remove a host: never `local`; refused while it holds VMs svc made (counted by a probe, from
     * the domains' metadata); refused when it cannot be probed unless `force` (svc cannot tell).
     */
    async remove(name: string, o: { force?: boolean; actor: string }): Promise<{ removed: string; vm_count: number | null }> {
      if (name === LOCAL_HOST) throw new ConflictError("host 'local' is the host the stack runs on and cannot be removed (drain it instead)");
      const row = await inv.get(name);
      if (row.provider !== "libvirt" && !o.force) {
        throw new ConflictError(
          `host '${name}' is a ${row.provider} host: svc does not count its instances here yet (svc-vm list vm -C ${name}); --force removes it from the inventory and touches no instance`,
        );
      }
      if (row.provider !== "libvirt") {
        await inv.remove(name, o.actor);
        return { removed: name, vm_count: null };
      }
      const h = await refresh(row);
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
      const hosts = await Promise.all((await inv.list()).filter((h) => h.provider === "libvirt").map(refresh));
      const view: PlacementHost[] = hosts.map((h) => ({ ...h, capacity: h.up ? h.last_probe : null, ...(h.up ? {} : { down_reason: h.probe_error ?? "unreachable" }) }));
      return place(request, view, weigher);
    },
  };
}

export type HostService = ReturnType<typeof createHostService>;
