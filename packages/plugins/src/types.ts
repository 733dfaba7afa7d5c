import type { HostExecutor } from "@svc/host";

/** What an OS plugin may be told: operator settings, parsed once from the environment. */
export interface PluginSettings {
  /** Directory for VM images (SVC_VM_IMAGES_DIR); created, and labelled virt_image_t under SELinux. */
  imagesDir: string;
  /** TCP ports opened in the host firewall (the AI assistant and the workflow UI). */
  ports: number[];
  /** The port svc's SSH connections reach (SVC_SSH_PORT, or the port of --host): sshd listens there. */
  sshPort: number;
  /** libvirt storage pool kept defined, running and autostarted. */
  poolName: string;
  poolDir: string;
  /** libvirt network kept defined, running and autostarted. */
  networkName: string;
}

/** A systemd unit, or on hosts without systemd the daemon's process. */
export interface ServiceState {
  enabled: boolean;
  active: boolean;
}

export interface LibvirtObjectState {
  active: boolean;
  autostart: boolean;
}

/** What checkState() found on the host. Plain data: plan() is a pure function of it. */
export interface HostState {
  os: { id: string; versionId: string; prettyName: string };
  /** Whether systemd runs the host (else daemons are started directly). */
  systemd: boolean;
  /** Package name → installed. */
  packages: Record<string, boolean>;
  /** Unit (systemd) or process name (no systemd) → state. */
  services: Record<string, ServiceState>;
  firewall: { tool: "firewalld" | "ufw" | "none"; running: boolean; openPorts: string[] };
  selinux: { mode: "enforcing" | "permissive" | "disabled"; fcontextRules: string[]; labels: Record<string, string> };
  /** Path → is a directory. */
  directories: Record<string, boolean>;
  kvm: { present: boolean; group: string; mode: string };
  /** reachable=false: libvirtd did not answer, so pools and networks are unknown. */
  libvirt: {
    reachable: boolean;
    pools: Record<string, LibvirtObjectState | null>;
    networks: Record<string, LibvirtObjectState | null>;
  };
}

/** A daemon the plugin keeps running: its systemd units, or its process and start command. */
export interface DaemonSpec {
  name: string;
  units: string[];
  process: string;
  /** Commands that start it on a host without systemd (run in order). */
  start: string[][];
  /**
   * Without systemd, the TCP port it must listen on: then it counts as running only when a process
   * of its name listens there (any sshd process is not enough: tests run private ones on other ports).
   */
  listenPort?: number;
}

/** What the host should look like. */
export interface DesiredState {
  packages: string[];
  /** Groups where any one installed package is enough; the first is installed when none is. */
  anyOf: string[][];
  daemons: DaemonSpec[];
  firewallPorts: string[];
  /** Paths labelled with this SELinux type (when SELinux is not disabled). */
  selinuxContexts: { path: string; type: string }[];
  directories: string[];
  pool: { name: string; dir: string };
  network: string;
}

/** One command of a change, as argv (never a shell string). */
export interface Step {
  argv: string[];
  env?: Record<string, string>;
}

export type ChangeKind = "packages" | "service" | "firewall" | "selinux" | "directory" | "kvm" | "libvirt-pool" | "libvirt-network";

/** One change of a plan: what and why, and the steps that make it. */
export interface Change {
  id: string;
  kind: ChangeKind;
  description: string;
  steps: Step[];
}

export interface StepFailure {
  change: string;
  step: string;
  code: number;
  output: string;
}

/** The result of apply(): changes applied, the failure (apply stops at the first), those not tried. */
export interface ApplyReport {
  applied: string[];
  failed: StepFailure[];
  notTried: string[];
}

/** Progress events of apply(), for the table output. */
export interface ApplyHooks {
  onChangeStart?: (change: Change, index: number, total: number) => void;
  onStep?: (change: Change, step: Step) => void;
  onChangeDone?: (change: Change, ok: boolean) => void;
}

/** Static description shown by `svc-plugins info`. */
export interface PluginInfo {
  checks: string[];
  changes: string[];
  dependencies: string[];
}

/** An OS plugin: one file per plugin; deploy = apply(plan(checkState(), desiredState())). */
export interface OsPlugin {
  name: string;
  kind: "os";
  version: string;
  description: string;
  family: "rhel" | "debian";
  /** Does this plugin fit a host with these os-release ID and VERSION_ID? */
  matches(os: { id: string; versionId: string }): boolean;
  info: PluginInfo;
  checkState(exec: HostExecutor, settings: PluginSettings): Promise<HostState>;
  desiredState(settings: PluginSettings): DesiredState;
  plan(current: HostState, desired: DesiredState): Change[];
  apply(plan: Change[], exec: HostExecutor, hooks?: ApplyHooks): Promise<ApplyReport>;
}
