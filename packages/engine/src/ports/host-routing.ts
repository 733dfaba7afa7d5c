import type { OperatorHost } from "./operator";

/** What a host-scoped try asks the router: its task and rendered, parsed args. */
export interface RouteRequest {
  dagId: string;
  runId: string;
  taskId: string;
  operator: string;
  args: Record<string, unknown>;
}

/** Where a host-scoped try runs, and the lines that explain why (written to its log). */
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

/** The hosts a worker serves and how tries find theirs (implemented by @svc/hosts' createHostRouting). */
export interface HostRouting<Executor = unknown, Cloud = unknown> {
  /** The hosts this worker serves (their queues are consumed while they are up). */
  served(): string[];
  /** Whether this worker serves `host` and its last probe found it up. */
  serves(host: string): boolean;
  /**
   * The host for a try: its `host` arg (pinned), the host holding the VM it names, or placement
   * for vm_create. Throws NonRetryableError when nothing fits (each host's reason in the message).
   */
  route(req: RouteRequest): Promise<RouteDecision>;
  /** The operator's view of a served host; undefined for `local` (the configured host, as before). */
  operatorHost(host: string): OperatorHost<Executor, Cloud> | undefined;
  /** Called after served hosts or their up/down state changed. */
  onChange(listener: () => void): void;
  /** Each served host's state for health reports: up, or down with the reason. */
  status(): Record<string, HostStatus>;
  close(): Promise<void>;
}
