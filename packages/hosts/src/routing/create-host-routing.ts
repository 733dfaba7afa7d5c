import type { VmDriver } from "@svc/vm";
import { ensureLocalHost } from "../local-host";
import { LOCAL_HOST } from "../names";
import { createHostMonitor } from "./monitor";
import { createOperatorHosts } from "./operator-hosts";
import { createRouter } from "./route";
import type { HostRouting, HostRoutingOptions } from "./types";

const DEFAULT_INTERVAL_MS = 10_000;

/** A cloud host is up when its driver answers: who its credentials are where it says so, else its list of svc's instances. */
function driverProbe(make: NonNullable<HostRoutingOptions["cloudDriver"]>): NonNullable<HostRoutingOptions["cloudProbe"]> {
  return async (h) => {
    const d = (await make(h)) as VmDriver & { identity?: () => Promise<Record<string, string>> };
    if (d.identity) return { up: true, identity: await d.identity() };
    await d.list();
    return { up: true, identity: { provider: h.provider } };
  };
}
const DEFAULT_PROBE_TIMEOUT_MS = 20_000;

/**
 * The worker's hosts (implements the engine's HostRouting): a monitor probing the served hosts
 * every probeIntervalMs, the router (pin, VM holder, placement) and the operators' executors.
 * serves(host) is "served and up at the last probe"; in a single-host install (only `local`)
 * `local` is served whatever its probe says, so nothing waits that ran before.
 */
export function createHostRouting(o: HostRoutingOptions): HostRouting {
  const intervalMs = o.probeIntervalMs ?? DEFAULT_INTERVAL_MS;
  const route = createRouter({ db: o.db, maxProbeAgeMs: 3 * intervalMs, weigher: o.weigher ?? "spread" });
  const ops = createOperatorHosts(o.cloudDriver);
  const cloudProbe = o.cloudProbe ?? (o.cloudDriver ? driverProbe(o.cloudDriver) : undefined);
  const listeners: (() => void)[] = [];
  let monitor: ReturnType<typeof createHostMonitor> | undefined;
  let closed = false;

  const start = async () => {
    if (o.localSettings) {
      const r = await ensureLocalHost(o.db, o.localSettings, "worker");
      if (r.created) o.logger.info({ host: LOCAL_HOST }, "host local added to the inventory from the settings");
      if (r.drift.length) o.logger.warn({ host: LOCAL_HOST, drift: r.drift }, "host local differs from the settings (the row is kept)");
    }
    if (closed) return;
    monitor = createHostMonitor({
      db: o.db,
      logger: o.logger,
      hosts: o.hosts,
      intervalMs,
      timeoutMs: o.probeTimeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS,
      ...(cloudProbe ? { cloudProbe } : {}),
    });
    for (const l of listeners) monitor.onChange(l);
    await monitor.ready();
  };
  const started = start();
  // A failing start is reported through ready(); this keeps it from being an unhandled rejection.
  started.catch((e: unknown) => o.logger.warn({ err: String(e) }, "host routing could not start"));

  const served = () => monitor?.served() ?? (o.hosts === "all" ? [] : [...o.hosts]);
  return {
    served,
    serves(host) {
      if (!monitor || !served().includes(host)) return false;
      if (host === LOCAL_HOST && monitor.singleHost()) return true;
      return monitor.status()[host]?.up === true;
    },
    route,
    operatorHost(host) {
      if (host === LOCAL_HOST) return undefined;
      const r = monitor?.record(host);
      // Never undefined for another host: the operator would then act on the configured one.
      if (!r) throw new Error(`host '${host}' is not served by this worker (or not in the inventory)`);
      return ops.get(r);
    },
    onChange(l) {
      listeners.push(l);
      monitor?.onChange(l);
    },
    status: () => monitor?.status() ?? Object.fromEntries(served().map((h) => [h, { up: false, reason: "not probed yet" }])),
    ready: () => started,
    async close() {
      closed = true;
      await started.catch(() => undefined);
      await monitor?.close();
      await ops.closeAll();
    },
  };
}
