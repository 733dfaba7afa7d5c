import type { SvcConfig } from "@svc/config";
import { LocalExecutor, SshExecutor, sharedSshPool, sshOptionsFromConfig, type HostExecutor, type RunResult } from "@svc/host";
import { ToolInputError } from "@svc/mcp";
import { hostOperatorSettings } from "@svc/operators";

/** The host's VMs as the VM tools see them: the VM CLI (`svc-vm … -o json`) run on the host, as the workers do. */
export interface VmTools {
  readonly target: string;
  /** `svc-vm <args> -o json` as root; parsed JSON, or an error naming the reason. */
  vmCli<T>(args: string[], timeoutMs?: number): Promise<T>;
  /** One plain command on the host (preflight probes). */
  exec(argv: string[], timeoutMs?: number): Promise<RunResult>;
  readonly disksDir: string;
  close(): Promise<void>;
}

/** A VM as the VM CLI reports it (fields the tools use). */
export interface VmCliInfo {
  name: string;
  state: string;
  image: string | null;
  cpus: number | null;
  memory_mb: number | null;
  ip: string | null;
  ssh_host: string | null;
  ssh_port: number | null;
  [k: string]: unknown;
}

/** VM CLI exit codes: 2 invalid input, 3 not found, 4 exists, 5 hypervisor down, 6 permission. */
function cliError(r: RunResult, cli: string, target: string): Error {
  let message = r.stderr.trim().split("\n").pop() || `exit ${r.code}`;
  try {
    const body = JSON.parse(r.stdout) as { error?: { message?: string } };
    if (body.error?.message) message = body.error.message;
  } catch {
    // not JSON: keep stderr's last line
  }
  if (r.code === 127 || /command not found|No such file or directory/.test(r.stderr)) return new ToolInputError(`VM CLI '${cli}' not found on ${target}; set SVC_VM_CLI`);
  if (r.code === 3) return new ToolInputError(message, "vm_name");
  if (r.code === 2 || r.code === 4) return new ToolInputError(message);
  if (r.code === 5) return new ToolInputError(`hypervisor unavailable on ${target}: ${message}`);
  if (r.code === 6) return new ToolInputError(`permission denied on ${target}: ${message}`);
  return new Error(`svc-vm failed on ${target}: ${message}`);
}

/** VM access over the configured host executor (SSH; `local` when SVC_SSH_HOST=local). */
export function createVmAccess(config: SvcConfig): VmTools {
  const ex: HostExecutor = config.ssh.host === "local" ? new LocalExecutor({ env: config.childEnv }) : new SshExecutor(sshOptionsFromConfig(config), sharedSshPool());
  const s = hostOperatorSettings(config.vm);
  const disksDir = s.disksDir ?? config.vm.disksDir;
  const global = ["--images-dir", config.vm.imagesDir, "--driver", config.vm.driver, "--disks-dir", disksDir, ...(s.libvirtUri ? ["--uri", s.libvirtUri] : [])];
  return {
    target: ex.target,
    disksDir,
    async vmCli<T>(args: string[], timeoutMs = 60_000): Promise<T> {
      const r = await ex.run([...s.vmCli, ...args, ...global, "-o", "json"], { root: true, timeoutMs });
      if (r.code !== 0) throw cliError(r, s.vmCli.join(" "), ex.target);
      try {
        return JSON.parse(r.stdout) as T;
      } catch {
        throw new Error(`svc-vm on ${ex.target} printed no JSON`);
      }
    },
    exec: (argv, timeoutMs = 15_000) => ex.run(argv, { timeoutMs }),
    close: () => ex.close(),
  };
}
