import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ServerMachines } from "./hetzner-fake";

const SVC_VM = path.resolve(__dirname, "../bin/svc-vm");

/** Where the fake's machines are made: a local libvirt through this checkout's VM CLI, user-mode networking (SSH on 127.0.0.1). */
export interface LocalMachinesOptions {
  imagesDir: string;
  disksDir: string;
  /** The local image every server boots, whatever Hetzner image it names (the test image, or debian12). */
  image: string;
  /** Domain names are `<prefix>-<server name>` (a test's prefix: its VMs are found and removed by it). */
  prefix: string;
  memoryMb?: number;
  cpus?: number;
}

function svcVm(args: string[], o: LocalMachinesOptions): Promise<Record<string, unknown>> {
  const argv = [...args, "--images-dir", o.imagesDir, "--disks-dir", o.disksDir, "--driver", "libvirt", "-o", "json"];
  return new Promise((resolve, reject) =>
    execFile(SVC_VM, argv, { encoding: "utf8", timeout: 600_000 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`svc-vm ${args.slice(0, 3).join(" ")}: ${stderr.trim().split("\n").pop() ?? err.message}`));
      resolve(JSON.parse(stdout) as Record<string, unknown>);
    }),
  );
}

/** The fake's servers as real local VMs: each a libvirt domain from `image`, root reached with the server's keys. */
export function localMachines(o: LocalMachinesOptions): ServerMachines {
  return {
    async boot(name, sshKeys, ports) {
      const dir = mkdtempSync(path.join(tmpdir(), "svc-hzfake-"));
      try {
        const keys = path.join(dir, "keys.pub");
        writeFileSync(keys, `${sshKeys.join("\n")}\n`);
        // The ports the server's firewall opens reach the machine through 127.0.0.1 forwards: what the fake cloud's network carries.
        const fwd = ports.length ? ["-P", `forwards=[${ports.map((p) => `${p.proto}/${p.port}`).join(",")}]`] : [];
        const size = ["-P", `memory=${o.memoryMb ?? 384}`, ...(o.cpus ? ["-P", `numcpus=${o.cpus}`] : [])];
        const info = await svcVm(["create", "vm", `${o.prefix}-${name}`, "-i", o.image, ...size, "-P", "nets=[user]", ...fwd, "--ssh-key", keys], o);
        if (typeof info.ssh_port !== "number") throw new Error(`svc-vm made ${o.prefix}-${name} without an SSH port`);
        const forwards = ((info.forwards ?? []) as { proto: "tcp" | "udp"; guest_port: number; host_port: number }[])
          .filter((f) => f.guest_port !== 22 || f.proto !== "tcp")
          .map((f) => ({ proto: f.proto, port: f.guest_port, hostPort: f.host_port }));
        return { sshPort: info.ssh_port, forwards };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    async remove(name) {
      await svcVm(["delete", "vm", `${o.prefix}-${name}`, "-y"], o);
    },
  };
}
