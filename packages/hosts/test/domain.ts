import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildDomainXml } from "@svc/vm";

const virsh = (uri: string, ...a: string[]) => spawnSync("virsh", ["--connect", uri, ...a], { encoding: "utf8" });

/** Define (never start) a domain with svc-vm's metadata, as if svc made it; returns its undefine. */
export function defineSvcDomain(uri: string, name: string, dir: string): () => void {
  const xml = buildDomainXml({
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
    consoleLog: join(dir, `${name}.log`),
    meta: { image: null, memory_mb: 128, cpus: 1, disks_gb: [], nets: [], ssh_port: null, ssh_user: null, vm_dir: dir },
    owner: { dagId: "d", runId: "r", taskId: "t" },
  });
  writeFileSync(join(dir, `${name}.xml`), xml);
  const r = virsh(uri, "define", join(dir, `${name}.xml`));
  if (r.status !== 0) throw new Error(`virsh define: ${r.stderr}`);
  return () => void virsh(uri, "undefine", name);
}
