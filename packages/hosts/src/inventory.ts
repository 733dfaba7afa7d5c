import { sql } from "kysely";
import type { Db, HostProvider, HostState, HypervisorHostRow } from "@svc/db";
import { AlreadyExistsError, NotFoundError } from "@svc/errors";
import type { NewHost } from "./names";
import type { HostCapacity, HostRecord } from "./types";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A row as the API shows it. */
export function toRecord(r: HypervisorHostRow): HostRecord {
  return {
    ...r,
    cpu_ratio: Number(r.cpu_ratio),
    last_probe: (r.last_probe as HostCapacity | null) ?? null,
    probed_at: iso(r.probed_at),
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

export class HostNotFoundError extends NotFoundError {
  constructor(readonly host: string) {
    super("not_found", `host '${host}' is not in the inventory (svc-hosts list)`);
  }
}

/** The host inventory in Postgres (table hypervisor_host); every change is also an audit event. */
export interface HostInventory {
  list(): Promise<HostRecord[]>;
  get(name: string): Promise<HostRecord>;
  find(name: string): Promise<HostRecord | undefined>;
  insert(host: Omit<NewHost, "host_key"> & { host_key: string | null; provider?: HostProvider; provider_settings?: Record<string, string> }, actor: string): Promise<HostRecord>;
  setState(name: string, state: HostState, actor: string): Promise<HostRecord>;
  setHostKey(name: string, hostKey: string, actor: string): Promise<HostRecord>;
  /** A probe's outcome: a libvirt host's capacity, an error, or `api: true` (a cloud host's provider answered; it keeps no capacity). */
  saveProbe(name: string, result: { capacity: HostCapacity } | { error: string } | { api: true }): Promise<void>;
  remove(name: string, actor: string): Promise<boolean>;
}

/** The kysely repository of the inventory. */
export function createHostInventory(db: Db): HostInventory {
  const audit = (actor: string, action: string, target: string, detail: Record<string, unknown> = {}) =>
    db
      .insertInto("audit_event")
      .values({ actor, action, target: `host:${target}`, detail: JSON.stringify(detail) })
      .execute();
  const find = async (name: string) => {
    const r = await db.selectFrom("hypervisor_host").selectAll().where("name", "=", name).executeTakeFirst();
    return r ? toRecord(r) : undefined;
  };
  const get = async (name: string) => {
    const r = await find(name);
    if (!r) throw new HostNotFoundError(name);
    return r;
  };
  const update = async (name: string, set: Record<string, unknown>) => {
    const r = await db
      .updateTable("hypervisor_host")
      .set({ ...set, updated_at: sql<Date>`now()` })
      .where("name", "=", name)
      .returningAll()
      .executeTakeFirst();
    if (!r) throw new HostNotFoundError(name);
    return toRecord(r);
  };
  return {
    find,
    get,
    async list() {
      return (await db.selectFrom("hypervisor_host").selectAll().orderBy("name").execute()).map(toRecord);
    },
    async insert(h, actor) {
      try {
        const r = await db
          .insertInto("hypervisor_host")
          .values({ ...h, labels: JSON.stringify(h.labels), provider_settings: JSON.stringify(h.provider_settings ?? {}), created_by: actor })
          .returningAll()
          .executeTakeFirstOrThrow();
        await audit(actor, "host.add", h.name, { address: h.address, port: h.port, ssh_user: h.ssh_user, provider: h.provider ?? "libvirt", ...h.provider_settings });
        return toRecord(r);
      } catch (e) {
        if ((e as { code?: string }).code !== "23505") throw e;
        const same = (e as { constraint?: string }).constraint === "hypervisor_host_pkey";
        throw new AlreadyExistsError(same ? `host '${h.name}' is already in the inventory` : `another host already is ${h.address}:${h.port}`);
      }
    },
    async setState(name, state, actor) {
      const r = await update(name, { state });
      await audit(actor, state === "draining" ? "host.drain" : "host.activate", name);
      return r;
    },
    async setHostKey(name, hostKey, actor) {
      const r = await update(name, { host_key: hostKey });
      await audit(actor, "host.pin", name, { host_key: hostKey });
      return r;
    },
    async saveProbe(name, result) {
      const set =
        "capacity" in result
          ? { last_probe: JSON.stringify(result.capacity), probed_at: result.capacity.probed_at, probe_error: null }
          : "api" in result
            ? { probe_error: null, probed_at: new Date().toISOString() }
            : { probe_error: result.error.slice(0, 2000), probed_at: new Date().toISOString() };
      await db.updateTable("hypervisor_host").set(set).where("name", "=", name).execute();
    },
    async remove(name, actor) {
      const r = await db.deleteFrom("hypervisor_host").where("name", "=", name).executeTakeFirst();
      if (Number(r.numDeletedRows) === 0) return false;
      await audit(actor, "host.remove", name);
      return true;
    },
  };
}
