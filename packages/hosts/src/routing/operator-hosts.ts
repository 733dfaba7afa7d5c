import type { VmDriver } from "@svc/vm";
import { hostExecutor, type PinnedExecutor } from "../connect";
import { LOCAL_HOST } from "../names";
import { parseBastion, sshFromOf } from "../providers";
import type { HostRecord } from "../types";
import type { RoutingOperatorHost } from "./types";

/** The operators' view of the hosts: one pinned executor per host, kept for the worker's life. */
export interface OperatorHosts {
  /** undefined for `local` (the configured host, as a single-host install has it). */
  get(record: HostRecord): RoutingOperatorHost | undefined;
  closeAll(): Promise<void>;
}

// What the executor was made from: a change (address, key, pinned keys) makes a new one.
const identity = (r: HostRecord) => JSON.stringify([r.ssh_user, r.address, r.port, r.key_path, r.host_key, r.provider, r.provider_settings]);

/** How a cloud host's driver is made (createHostRouting's cloudDriver option). */
export type CloudDriverFactory = (host: HostRecord) => Promise<VmDriver>;

const NO_CLOUD = (r: HostRecord) => Promise.reject(new Error(`host '${r.name}' is a ${r.provider} host and this worker has no cloud credentials reader`));

export function createOperatorHosts(cloudDriver: CloudDriverFactory = NO_CLOUD): OperatorHosts {
  const cache = new Map<string, { id: string; ex?: PinnedExecutor; view: RoutingOperatorHost }>();
  // Replaced executors may still run a try's command: closed with the rest, not at once.
  const retired: PinnedExecutor[] = [];

  const libvirtHost = (r: HostRecord) => {
    const ex = hostExecutor(r);
    const view = {
      name: r.name,
      executor: ex,
      libvirtUri: r.libvirt_uri,
      disksDir: r.disks_dir,
      imagesDir: r.images_dir,
      jump: { user: r.ssh_user, address: r.address, port: r.port, keyPath: r.key_path, knownHostsPath: ex.knownHostsPath },
    };
    return { ex, view };
  };

  // A cloud host: no executor (its commands run on the configured host), the driver made on first
  // use, and its bastion, when it names one, as the jump (the bastion's keys are the row's host_key).
  const cloudHost = (r: HostRecord) => {
    const s = r.provider_settings;
    const b = s.bastion ? parseBastion(s.bastion) : undefined;
    const ex = b ? hostExecutor({ name: r.name, ssh_user: b.user, address: b.address, port: b.port, key_path: r.key_path, host_key: r.host_key }) : undefined;
    let driver: Promise<VmDriver> | undefined;
    const view: RoutingOperatorHost = {
      name: r.name,
      libvirtUri: r.libvirt_uri,
      disksDir: r.disks_dir,
      imagesDir: r.images_dir,
      ...(b && ex ? { jump: { user: b.user, address: b.address, port: b.port, keyPath: r.key_path, knownHostsPath: ex.knownHostsPath } } : {}),
      cloud: {
        provider: r.provider,
        region: s.region ?? s.location ?? "",
        sshUser: s.ssh_user ?? "svc",
        sshFrom: sshFromOf(s),
        keyPath: r.key_path,
        driver: () =>
          (driver ??= cloudDriver(r).catch((e: unknown) => {
            driver = undefined;
            throw e;
          })),
      },
    };
    return { ex, view };
  };

  return {
    get(r) {
      if (r.name === LOCAL_HOST) return undefined;
      let c = cache.get(r.name);
      if (!c || c.id !== identity(r)) {
        if (c?.ex) retired.push(c.ex);
        c = { id: identity(r), ...(r.provider === "libvirt" ? libvirtHost(r) : cloudHost(r)) };
        cache.set(r.name, c);
      }
      return c.view;
    },
    async closeAll() {
      const all = [...[...cache.values()].flatMap((c) => (c.ex ? [c.ex] : [])), ...retired.splice(0)];
      cache.clear();
      await Promise.all(all.map((ex) => ex.close().catch(() => undefined)));
    },
  };
}
