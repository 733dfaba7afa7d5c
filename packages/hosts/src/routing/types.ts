// The engine's routing ports (@svc/engine/ports), bound to @svc/host's executor, and the options of createHostRouting.
import type { SvcConfig } from "@svc/config";
import type { Db } from "@svc/db";
import type * as Ports from "@svc/engine/ports";
import type { HostExecutor } from "@svc/host";
import type { VmDriver } from "@svc/vm";
import type { Weigher } from "../place";
import type { CloudProbeResult } from "../service";
import type { HostRecord } from "../types";

export type { HostStatus, RouteDecision, RouteRequest } from "@svc/engine/ports";

/** The part of a pino logger the routing uses (a constant message plus fields). */
export interface RoutingLogger {
  info(fields: Record<string, unknown>, msg: string): void;
  warn(fields: Record<string, unknown>, msg: string): void;
}

/**
 * A cloud host as a host-scoped operator uses it: its VM driver (called in the worker's process:
 * the provider's API is the host) and how its instances are reached. With a bastion, the
 * OperatorHost's `jump` is the bastion (its keys pinned in the host's row).
 */
export interface CloudTarget {
  provider: string;
  /** The region (aws) or location (hetzner). */
  region: string;
  /** The host's driver, made once per worker and host settings (reading the secrets file then). */
  driver(): Promise<VmDriver>;
  /** The private key its instances are reached with (its `.pub` is given to the provider), on the configured host where plays run. */
  keyPath: string;
  /** The login on its instances (the host's ssh_user setting; default svc, the user cloud-init makes). */
  sshUser: string;
  /** The CIDRs svc's SSH comes from (the host's ssh_from, else its bastion's IP); empty: unknown. A product VM's firewall opens 22 to these. */
  sshFrom: string[];
}

/** A host of the inventory as a host-scoped operator uses it (the engine's OperatorHost over an SSH executor). */
export type RoutingOperatorHost = Ports.OperatorHost<HostExecutor, CloudTarget>;

/** The engine's HostRouting, plus ready(): the first probe round is done. */
export interface HostRouting extends Ports.HostRouting<HostExecutor, CloudTarget> {
  ready(): Promise<void>;
}

/** Options of createHostRouting. */
export interface HostRoutingOptions {
  db: Db;
  logger: RoutingLogger;
  /** The hosts this worker serves, or every host of the inventory (re-read each probe round). */
  hosts: string[] | "all";
  /** Probe period (default 10 s); a probe older than 3 periods counts as down for placement. */
  probeIntervalMs?: number;
  /** Deadline of one probe (default 20 s): a host that has not answered by then is down. */
  probeTimeoutMs?: number;
  /** The configured host's settings (SVC_SSH_*, SVC_VM_*): `local` is made from them at start when missing. */
  localSettings?: Pick<SvcConfig, "ssh" | "vm">;
  /** How a VM is placed when several hosts fit (SvcConfig.placement.weigher; default spread). */
  weigher?: Weigher;
  /**
   * A cloud host's VM driver (@svc/vm's cloudDriverFor with the secrets file); without it cloud
   * hosts are down in this worker ("no cloud credentials here").
   */
  cloudDriver?: (host: HostRecord) => Promise<VmDriver>;
  /** A cloud host's probe (who its credentials are); default: the driver's identity call. */
  cloudProbe?: (host: HostRecord) => Promise<CloudProbeResult>;
}
