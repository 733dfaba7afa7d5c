import type { VmOwner } from "../types";

/** What svc-vm records in the domain's <metadata>, so `info vm` can report it later. */
export interface SvcVmMeta {
  /** Null for a VM that boots an ISO on empty disks. */
  image: string | null;
  memory_mb: number;
  cpus: number;
  disks_gb: number[];
  nets: string[];
  /** Pinned MACs, one per net (absent in metadata written before MACs could be pinned). */
  macs?: string[];
  /** The ISO attached as a CD-ROM (absent in older metadata). */
  iso?: string | null;
  ssh_port: number | null;
  /** Product ports forwarded to 127.0.0.1 (user-mode networking; absent in older metadata). */
  forwards?: RecordedForward[];
  /** The guest may connect out of its user-mode NIC (restrict=off); absent means false. */
  user_net_outbound?: boolean;
  /** Null when no key was injected (ISO boots: the ISO decides who may log in). */
  ssh_user: string | null;
  vm_dir: string;
}

/** A forward as recorded in the metadata: the guest port and the 127.0.0.1 port it was given. */
export interface RecordedForward {
  proto: "tcp" | "udp";
  guest_port: number;
  host_port: number;
}

/** Inputs of the domain definition. */
export interface DomainXmlOptions {
  name: string;
  virtType: "kvm" | "qemu";
  memoryMb: number;
  cpus: number;
  disks: { path: string; format: "qcow2" | "raw" }[];
  /** cloud-init NoCloud seed, attached as a CD-ROM. */
  seedIso: string | null;
  /** A bootable ISO, attached as a CD-ROM; without a kernel the VM boots disk first, then it. */
  iso: string | null;
  kernel: { kernel: string; initrd: string; cmdline: string } | null;
  /** libvirt networks (everything but `user`), each with a pinned MAC or null (libvirt picks one). */
  networks: { name: string; mac: string | null }[];
  /** Forwarded 127.0.0.1 port for user-mode networking, or null. */
  userNetPort: number | null;
  /** Pinned MAC of the user-mode NIC, or null (qemu's default). */
  userNetMac: string | null;
  consoleLog: string;
  meta: SvcVmMeta;
  /** The task that created the VM (recorded with managed_by svc), or null when the CLI was not told. */
  owner: VmOwner | null;
}

export const SVC_META_NS = "https://svc.dev/xmlns/vm/1";
const QEMU_NS = "http://libvirt.org/schemas/domain/qemu/1.0";

/** Escape text for XML content and attribute values. */
export function xmlEscape(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;");
}

function xmlUnescape(s: string): string {
  return s
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");
}

/** The libvirt domain XML for a VM. Every value is escaped; names were validated before. */
export function buildDomainXml(o: DomainXmlOptions): string {
  const e = xmlEscape;
  const disks = o.disks
    .map(
      (d, i) => `    <disk type='file' device='disk'>
      <driver name='qemu' type='${d.format}' discard='unmap'/>
      <source file='${e(d.path)}'/>
      <target dev='vd${String.fromCharCode(97 + i)}' bus='virtio'/>
    </disk>`,
    )
    .join("\n");
  // IDE slots hdc, hdd: the boot ISO first, then the cloud-init seed.
  const cdroms = [o.iso, o.seedIso]
    .filter((p): p is string => !!p)
    .map(
      (p, i) => `    <disk type='file' device='cdrom'>
      <driver name='qemu' type='raw'/>
      <source file='${e(p)}'/>
      <target dev='hd${String.fromCharCode(99 + i)}' bus='ide'/>
      <readonly/>
    </disk>\n`,
    )
    .join("");
  const nets = o.networks
    .map(
      (n) => `    <interface type='network'>
${n.mac ? `      <mac address='${e(n.mac)}'/>\n` : ""}      <source network='${e(n.name)}'/>
      <model type='virtio'/>
    </interface>\n`,
    )
    .join("");
  const boot = o.kernel
    ? `    <kernel>${e(o.kernel.kernel)}</kernel>
    <initrd>${e(o.kernel.initrd)}</initrd>
    <cmdline>${e(o.kernel.cmdline)}</cmdline>`
    : o.iso
      ? "    <boot dev='hd'/>\n    <boot dev='cdrom'/>"
      : "    <boot dev='hd'/>";
  // User-mode networking through qemu's own -netdev: libvirt 9 forwards ports on
  // <interface type='user'> only with the passt backend. restrict=on keeps the guest
  // isolated (no traffic out of it); the SSH forward on 127.0.0.1 still works. A router's
  // uplink (meta.user_net_outbound) needs restrict=off: its guest then reaches the host's
  // 127.0.0.1 as 10.0.2.2 and slirp's resolver at 10.0.2.3. The NIC
  // takes the last slot of the i440fx bus, which libvirt fills from the bottom.
  // Product ports (meta.forwards) are forwarded the same way, each to its own 127.0.0.1 port.
  const fwds = [{ proto: "tcp", host_port: o.userNetPort ?? 0, guest_port: 22 }, ...(o.meta.forwards ?? [])]
    .map((f) => `hostfwd=${f.proto}:127.0.0.1:${f.host_port}-:${f.guest_port}`)
    .join(",");
  const qemuArgs = o.userNetPort
    ? `  <qemu:commandline>
    <qemu:arg value='-netdev'/>
    <qemu:arg value='user,id=svcnet0,restrict=${o.meta.user_net_outbound ? "off" : "on"},${fwds}'/>
    <qemu:arg value='-device'/>
    <qemu:arg value='virtio-net-pci,netdev=svcnet0,bus=pci.0,addr=0x1f${o.userNetMac ? `,mac=${e(o.userNetMac)}` : ""}'/>
  </qemu:commandline>\n`
    : "";
  return `<domain type='${o.virtType}' xmlns:qemu='${QEMU_NS}'>
  <name>${e(o.name)}</name>
  <metadata>
    <svc:vm xmlns:svc='${SVC_META_NS}'><svc:spec>${e(JSON.stringify(o.meta))}</svc:spec>${ownerXml(o.owner)}</svc:vm>
  </metadata>
  <memory unit='MiB'>${o.memoryMb}</memory>
  <vcpu>${o.cpus}</vcpu>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
${boot}
  </os>
  <features><acpi/><apic/></features>
${o.virtType === "kvm" ? "  <cpu mode='host-passthrough'/>\n" : ""}  <clock offset='utc'/>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>restart</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
${disks}
${cdroms}${nets}    <serial type='file'>
      <source path='${e(o.consoleLog)}'/>
      <target port='0'/>
    </serial>
    <rng model='virtio'><backend model='random'>/dev/urandom</backend></rng>
    <memballoon model='none'/>
  </devices>
${qemuArgs}</domain>
`;
}

/** `<svc:owner managed_by='svc' dag_id=.. run_id=.. task_id=../>`: who made the domain. */
function ownerXml(owner: VmOwner | null): string {
  const ids = owner ? ` dag_id='${xmlEscape(owner.dagId)}' run_id='${xmlEscape(owner.runId)}' task_id='${xmlEscape(owner.taskId)}'` : "";
  return `<svc:owner managed_by='svc'${ids}/>`;
}

/** The owner recorded in a domain's svc metadata (libvirt rewrites it with double quotes), or null. */
function parseOwner(xml: string): VmOwner | null {
  const el = /<svc:owner\b([^>]*?)\/?>/.exec(xml);
  if (!el) return null;
  const attrs = new Map([...el[1]!.matchAll(/([\w-]+)=(["'])(.*?)\2/g)].map((m) => [m[1]!, xmlUnescape(m[3]!)]));
  const [dagId, runId, taskId] = [attrs.get("dag_id"), attrs.get("run_id"), attrs.get("task_id")];
  return dagId !== undefined && runId !== undefined && taskId !== undefined ? { dagId, runId, taskId } : null;
}

/** The parts of `virsh dumpxml` that info needs. */
export interface ParsedDomain {
  memoryMb: number | null;
  cpus: number | null;
  disks: { path: string; device: string }[];
  networks: string[];
  /** MAC addresses of the libvirt-network NICs, in order (libvirt fills them in when not pinned). */
  macs: string[];
  meta: SvcVmMeta | null;
  /** The creating task, when svc recorded one (null for domains of other tools and older svc-vm). */
  owner: VmOwner | null;
}

/** Read a libvirt domain XML (ours or anyone's) for info. Only attributes we rely on are read. */
export function parseDomainXml(xml: string): ParsedDomain {
  const mem = /<memory unit='(\w+)'>(\d+)<\/memory>/.exec(xml);
  const unit: Record<string, number> = { KiB: 1 / 1024, MiB: 1, GiB: 1024, b: 1 / 1048576, bytes: 1 / 1048576 };
  const memoryMb = mem ? Math.round(Number(mem[2]) * (unit[mem[1]!] ?? 1 / 1024)) : null;
  const vcpu = /<vcpu[^>]*>(\d+)<\/vcpu>/.exec(xml);
  const disks: { path: string; device: string }[] = [];
  for (const m of xml.matchAll(/<disk type='file' device='(\w+)'>([\s\S]*?)<\/disk>/g)) {
    const src = /<source file='([^']*)'/.exec(m[2]!);
    if (src) disks.push({ path: xmlUnescape(src[1]!), device: m[1]! });
  }
  const networks: string[] = [];
  const macs: string[] = [];
  for (const m of xml.matchAll(/<interface type='network'>([\s\S]*?)<\/interface>/g)) {
    const src = /<source network='([^']*)'/.exec(m[1]!);
    const mac = /<mac address='([^']*)'/.exec(m[1]!);
    if (src) networks.push(xmlUnescape(src[1]!));
    if (mac) macs.push(xmlUnescape(mac[1]!));
  }
  let meta: SvcVmMeta | null = null;
  const spec = /<svc:spec>([\s\S]*?)<\/svc:spec>/.exec(xml);
  if (spec) {
    try {
      meta = JSON.parse(xmlUnescape(spec[1]!)) as SvcVmMeta;
    } catch {
      meta = null;
    }
  }
  return { memoryMb, cpus: vcpu ? Number(vcpu[1]) : null, disks, networks, macs, meta, owner: meta ? parseOwner(xml) : null };
}
