import type { Db } from "@svc/db";
import { createHostInventory } from "../inventory";
import { LOCAL_HOST } from "../names";
import { probeRecord } from "../contact";
import type { CloudProbeResult } from "../service";
import type { HostRecord, ProbeResult } from "../types";
import type { HostStatus, RoutingLogger } from "./types";

/** Options of the monitor; `probe` is replaceable for tests of the bookkeeping. */
export interface HostMonitorOptions {
  db: Db;
  logger: RoutingLogger;
  hosts: string[] | "all";
  intervalMs: number;
  timeoutMs: number;
  probe?: (h: HostRecord) => Promise<ProbeResult>;
  /** A cloud host's probe (its provider's identity call); absent: cloud hosts are down here. */
  cloudProbe?: (h: HostRecord) => Promise<CloudProbeResult>;
}

/** The served hosts and their state as this process's last probe round found them. */
export interface HostMonitor {
  served(): string[];
  status(): Record<string, HostStatus>;
  /** The host's record as the last round read it. */
  record(host: string): HostRecord | undefined;
  /** The inventory held only `local` (or nothing yet) at the last round: a single-host install. */
  singleHost(): boolean;
  onChange(listener: () => void): void;
  ready(): Promise<void>;
  close(): Promise<void>;
}

const TIMED_OUT = Symbol("timed out");

async function withDeadline<T>(p: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<typeof TIMED_OUT>((resolve) => (timer = setTimeout(() => resolve(TIMED_OUT), ms)));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Probe every served host each `intervalMs` (all at once, each with a fresh SSH connection so a
 * stopped sshd is seen at once; a probe past `timeoutMs` is down), write each outcome to its row
 * and tell the listeners when the served set or a host's up/down changes.
 */
export function createHostMonitor(o: HostMonitorOptions): HostMonitor {
  const inv = createHostInventory(o.db);
  const probe = o.probe ?? probeRecord;
  const listeners: (() => void)[] = [];
  let served: string[] = o.hosts === "all" ? [] : [...o.hosts];
  let states = new Map<string, HostStatus>();
  let records = new Map<string, HostRecord>();
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();

  const probeOne = async (name: string, rec: HostRecord | undefined): Promise<HostStatus> => {
    const at = new Date().toISOString();
    if (!rec) return { up: false, reason: "not in the inventory", probedAt: at };
    const failed = (e: unknown) => ({ up: false as const, error: e instanceof Error ? e.message : String(e) });
    const cloud = rec.provider !== "libvirt";
    const noCloud = async (): Promise<CloudProbeResult> => ({ up: false, error: `a ${rec.provider} host, and this worker has no cloud credentials reader` });
    const r = await withDeadline<ProbeResult | CloudProbeResult>(cloud ? (o.cloudProbe ?? noCloud)(rec).catch(failed) : probe(rec).catch(failed), o.timeoutMs);
    const res = r === TIMED_OUT ? failed(new Error(`the probe did not finish within ${Math.round(o.timeoutMs / 1000)} s`)) : r;
    if (!closed) {
      await inv
        .saveProbe(name, !res.up ? { error: res.error } : "capacity" in res ? { capacity: res.capacity } : { api: true })
        .catch((e: unknown) => o.logger.warn({ host: name, err: String(e) }, "could not record a host probe"));
    }
    if (!res.up) return { up: false, reason: res.error, probedAt: at };
    return { up: true, probedAt: "capacity" in res ? res.capacity.probed_at : new Date().toISOString() };
  };

  const round = async (): Promise<void> => {
    let list: HostRecord[];
    try {
      list = await inv.list();
    } catch (e) {
      o.logger.warn({ err: String(e) }, "host monitor could not read the inventory");
      return;
    }
    const byName = new Map(list.map((r) => [r.name, r]));
    const names = o.hosts === "all" ? list.map((r) => r.name) : [...o.hosts];
    // A single-host install (only `local`) is not probed: its tries run here whatever a probe
    // says (serves), and a probe every period of every worker would be load for nothing.
    const single = list.every((r) => r.name === LOCAL_HOST);
    const skip = (): HostStatus => ({ up: true, reason: "single-host install: not probed", probedAt: new Date().toISOString() });
    const next = new Map(await Promise.all(names.map(async (n) => [n, single && n === LOCAL_HOST ? skip() : await probeOne(n, byName.get(n))] as const)));
    if (closed) return;
    let changed = names.join(",") !== served.join(",");
    if (changed) o.logger.info({ hosts: names, before: served }, "served hosts changed");
    for (const [n, s] of next) {
      const before = states.get(n);
      if (before?.up === s.up) continue;
      changed = true;
      if (s.up) o.logger.info({ host: n }, "host up");
      else o.logger.warn({ host: n, reason: s.reason }, "host down");
    }
    served = names;
    states = next;
    records = byName;
    if (changed) {
      for (const l of listeners) {
        try {
          l();
        } catch (e) {
          o.logger.warn({ err: String(e) }, "a host change listener failed");
        }
      }
    }
  };

  const loop = () => {
    const started = Date.now();
    current = round().finally(() => {
      if (closed) return;
      timer = setTimeout(loop, Math.max(0, o.intervalMs - (Date.now() - started)));
      timer.unref();
    });
  };
  loop();
  const first = current;

  return {
    served: () => [...served],
    status: () => Object.fromEntries(served.map((n) => [n, { ...(states.get(n) ?? { up: false, reason: "not probed yet" }) }])),
    record: (host) => records.get(host),
    singleHost: () => [...records.keys()].every((n) => n === LOCAL_HOST),
    onChange: (l) => void listeners.push(l),
    ready: () => first,
    async close() {
      closed = true;
      clearTimeout(timer);
      await current;
    },
  };
}
