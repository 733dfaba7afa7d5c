// The engine's operator ports (@svc/engine/ports), bound to @svc/host's executor and @svc/hosts'
// cloud target: a host-scoped operator runs its commands on the routed host through it, or calls
// a cloud host's driver.
import type { HostExecutor } from "@svc/host";
import type { CloudTarget } from "@svc/hosts";
import type * as Ports from "@svc/engine/ports";

export type { LogStream, DagRunsPort, RunView } from "@svc/engine/ports";
/** Thrown by an operator whose try waits: the worker runs it again later at the same try number. */
export { RescheduleTry } from "@svc/engine/ports";

/** A host of the inventory as a host-scoped operator uses it: reached with its pinned key, its own libvirt and directories; or a cloud host. */
export type OperatorHost = Ports.OperatorHost<HostExecutor, CloudTarget>;

/** What an operator gets for one try. Everything it needs comes in here: no globals. */
export type OperatorContext = Ports.OperatorContext<HostExecutor, CloudTarget>;

/** An operator: a validated args schema and an idempotent run function (at-least-once delivery). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a registry holds operators of different argument types; each run() gets args its own schema parsed
export type Operator<A = any> = Ports.Operator<A, HostExecutor, CloudTarget>;
