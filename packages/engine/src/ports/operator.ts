import type { z } from "zod";
import type { SvcConfig } from "@svc/config";
import type { OperatorCatalog } from "@svc/dags";

export type LogStream = "stdout" | "stderr" | "system";

/**
 * A host of the inventory as a host-scoped operator uses it: reached with its pinned key, its own
 * libvirt and directories. The engine passes it from the router to the operator without using
 * `executor`, so it leaves its type to them (the SSH or local executor, bound by the operators and the router).
 */
export interface OperatorHost<Executor = unknown, Cloud = unknown> {
  name: string;
  /** Reaches the host; absent for a cloud host, whose commands (SSH waits, plays) run on the configured host. */
  executor?: Executor;
  libvirtUri: string;
  disksDir: string;
  imagesDir: string;
  /** How the worker reaches 127.0.0.1 ports of this host (a VM's forwards): absent for the machine the worker runs on. */
  jump?: { user: string; address: string; port: number; keyPath: string; knownHostsPath: string };
  /** A cloud host (aws, hetzner): its VM driver, called in the worker's process, and how its instances are reached. */
  cloud?: Cloud;
}

/** What an operator gets for one try. Everything it needs comes in here: no globals. */
export interface OperatorContext<Executor = unknown, Cloud = unknown> {
  dagId: string;
  runId: string;
  taskId: string;
  tryNumber: number;
  /** Resolved run params (conf merged with defaults). */
  params: Record<string, unknown>;
  config: SvcConfig;
  /** Append one line to this try's log (streamed to Postgres as it comes). */
  log(line: string, stream?: LogStream): void;
  /** Aborted on execution_timeout or cancel; operators must stop their child work promptly. */
  signal: AbortSignal;
  /** DAG runs as the engine's worker offers them (trigger_dag_run); absent outside a worker. */
  dagRuns?: DagRunsPort;
  /**
   * The hypervisor host this try was routed to (several-host installs, operators with
   * `hostScoped`). Absent: the configured host (SVC_SSH_*, SVC_VM_*), as a single-host install has.
   */
  host?: OperatorHost<Executor, Cloud>;
}

/** A DAG run as an operator sees it. */
export interface RunView {
  dagId: string;
  runId: string;
  state: "queued" | "running" | "success" | "failed";
  /** When it was triggered (its logical date). */
  triggeredAt: Date;
  /** The try that triggered it, or null (triggered from elsewhere). */
  parent: { dagId: string; runId: string; taskId: string; tryNumber: number } | null;
}

/** The engine's DAG runs, for an operator that triggers a run and waits for it. Bound to the calling try. */
export interface DagRunsPort {
  find(dagId: string, runId: string): Promise<RunView | undefined>;
  /**
   * Create run `runId` of `dagId`, linked to the calling try, with `conf` checked against the DAG's
   * params as a REST trigger checks it (ParamsInvalidError, DagNotFoundError...), with the rights
   * of the calling try's run (its `min_role` params against the role that run was triggered or
   * approved with; ForbiddenError for a paused DAG unless its file and that role allow one run). A
   * run with that id that already exists is returned as it is: the caller checks whose it is.
   */
  trigger(dagId: string, runId: string, conf: Record<string, unknown>): Promise<RunView & { created: boolean }>;
  /** Why a run failed: its failed tasks, each with its error and last log line. */
  failureReason(dagId: string, runId: string): Promise<string>;
}

/** An operator: a validated args schema and an idempotent run function (at-least-once delivery). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a registry holds operators of different argument types; each run() gets args its own schema parsed
export interface Operator<A = any, Executor = unknown, Cloud = unknown> {
  name: string;
  description: string;
  /** zod schema of rendered args; also used at import time to reject bad DAGs. */
  args: z.ZodType<A>;
  /**
   * Finishes at once and touches nothing outside the process (noop): a worker may run it before
   * claiming the try and write its success in one step. A duplicate delivery may then run it twice,
   * which is why it must have no effect; only one outcome is ever written.
   */
  instant?: boolean;
  /**
   * A try lost with its worker (killed, or stopping) resumes at the same try number instead of
   * taking a new one. For operators whose run() is idempotent per try and that reschedule
   * (throw RescheduleTry): the try number is what ties the try to what it started.
   */
  resumable?: boolean;
  /**
   * Acts on a hypervisor host (VMs, SSH to the host, Ansible through its forwards): the worker
   * routes the try to a host (its `host` arg, the host holding the VM it names, or placement for
   * vm_create) and runs it only where it serves that host.
   */
  hostScoped?: boolean;
  /** Returns the try's output (JSON), exposed to downstream tasks as `ti.<task>.output`. */
  run(args: A, ctx: OperatorContext<Executor, Cloud>): Promise<Record<string, unknown> | void>;
}

/** Operators by name, usable as the DAG validator's catalog (the operators package's createOperatorRegistry implements it). */
export interface OperatorRegistry extends OperatorCatalog {
  get(name: string): Operator | undefined;
  names(): string[];
}
