// The routing types, structurally the same as @svc/engine's HostRouting and @svc/operators'
// OperatorHost: @svc/hosts does not depend on the engine, the engine takes this as its HostRouting.
import type { SvcConfig } from "@svc/config";
import type { Db } from "@svc/db";
import type { HostExecutor } from "@svc/host";
import type { Weigher } from "../place";

/** The part of a pino logger the routing uses (a constant message plus fields). */
export interface RoutingLogger {
  info(fields: Record<string, unknown>, msg: string): void;
  warn(fields: Record<string, unknown>, msg: string): void;
}

/** A host of the inventory as a host-scoped operator uses it (= @svc/operators' OperatorHost). */
export interface RoutingOperatorHost {
  name: string;
  executor: HostExecutor;
  libvirtUri: string;
  disksDir: string;
  imagesDir: string;
  /** How the worker reaches 127.0.0.1 ports of this host: SSH to it with its key, checked against its pinned keys. */
  jump?: { user: string; address: string; port: number; keyPath: string; knownHostsPath: string };
}

/** What a host-scoped try asks the router: its task and rendered, parsed args (= the engine's RouteRequest). */
export interface RouteRequest {
  dagId: string;
  runId: string;
  taskId: string;
  operator: string;
  args: Record<string, unknown>;
}

/** Where a host-scoped try runs, and the lines that explain why (= the engine's RouteDecision). */
export interface RouteDecision {
  host: string;
  lines: string[];
}

/** A served host's state as this worker's last probe found it. */
export interface HostStatus {
  up: boolean;
  reason?: string;
  probedAt?: string;
}

/** The engine's HostRouting, plus ready(): the first probe round is done. */
export interface HostRouting {
  served(): string[];
  serves(host: string): boolean;
  route(req: RouteRequest): Promise<RouteDecision>;
  operatorHost(host: string): RoutingOperatorHost | undefined;
  onChange(listener: () => void): void;
  status(): Record<string, HostStatus>;
  ready(): Promise<void>;
  close(): Promise<void>;
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
}
