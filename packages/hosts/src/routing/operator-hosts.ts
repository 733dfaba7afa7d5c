import { hostExecutor, type PinnedExecutor } from "../connect";
import { LOCAL_HOST } from "../names";
import type { HostRecord } from "../types";
import type { RoutingOperatorHost } from "./types";

/** The operators' view of the hosts: one pinned executor per host, kept for the worker's life. */
export interface OperatorHosts {
  /** undefined for `local` (the configured host, as a single-host install has it). */
  get(record: HostRecord): RoutingOperatorHost | undefined;
  closeAll(): Promise<void>;
}

// What the executor was made from: a change (address, key, pinned keys) makes a new one.
const identity = (r: HostRecord) => JSON.stringify([r.ssh_user, r.address, r.port, r.key_path, r.host_key]);

export function createOperatorHosts(): OperatorHosts {
  const cache = new Map<string, { id: string; ex: PinnedExecutor }>();
  // Replaced executors may still run a try's command: closed with the rest, not at once.
  const retired: PinnedExecutor[] = [];
  return {
    get(r) {
      if (r.name === LOCAL_HOST) return undefined;
      let c = cache.get(r.name);
      if (!c || c.id !== identity(r)) {
        if (c) retired.push(c.ex);
        c = { id: identity(r), ex: hostExecutor(r) };
        cache.set(r.name, c);
      }
      return {
        name: r.name,
        executor: c.ex,
        libvirtUri: r.libvirt_uri,
        disksDir: r.disks_dir,
        imagesDir: r.images_dir,
        jump: { user: r.ssh_user, address: r.address, port: r.port, keyPath: r.key_path, knownHostsPath: c.ex.knownHostsPath },
      };
    },
    async closeAll() {
      const all = [...[...cache.values()].map((c) => c.ex), ...retired.splice(0)];
      cache.clear();
      await Promise.all(all.map((ex) => ex.close().catch(() => undefined)));
    },
  };
}
