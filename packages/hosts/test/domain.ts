import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildDomainXml } from "@svc/vm";

const virsh = (uri: string, ...a: string[]) => spawnSync("virsh", ["--connect", uri, ...a], { encoding: "utf8" });

/** The XML of a domain with svc-vm's metadata, as if svc made it (128 MiB, one CPU, no disks). */
export function svcDomainXml(name: string, vmDir: string, consoleLog: string): string {
  return buildDomainXml({
    name,
    virtType: "qemu",
    memoryMb: 128,
    cpus: 1,
    disks: [],
    seedIso: null,
    iso: null,
    kernel: null,
    networks: [],
    userNetPort: null,
    userNetMac: null,
    consoleLog,
    meta: { image: null, memory_mb: 128, cpus: 1, disks_gb: [], nets: [], ssh_port: null, ssh_user: null, vm_dir: vmDir },
    owner: { dagId: "d", runId: "r", taskId: "t" },
  });
}

/** Define (never start) a domain with svc-vm's metadata, as if svc made it; returns its undefine. */
export function defineSvcDomain(uri: string, name: string, dir: string): () => void {
  writeFileSync(join(dir, `${name}.xml`), svcDomainXml(name, dir, join(dir, `${name}.log`)));
  const r = virsh(uri, "define", join(dir, `${name}.xml`));
  if (r.status !== 0) throw new Error(`virsh define: ${r.stderr}`);
  return () => void virsh(uri, "undefine", name);
}
