import { buildDomainXml, parseDomainXml, type DomainXmlOptions } from "./domain-xml";

const base: DomainXmlOptions = {
  name: "vm1",
  virtType: "qemu",
  memoryMb: 768,
  cpus: 2,
  disks: [{ path: "/var/lib/svc/vms/vm1/root.qcow2", format: "qcow2" }, { path: "/var/lib/svc/vms/vm1/data1.qcow2", format: "qcow2" }],
  seedIso: null,
  kernel: { kernel: "/img/vmlinuz", initrd: "/img/initrd.img", cmdline: "root=/dev/vda rw svc_ssh_key=abc" },
  networks: ["default"],
  userNetPort: 40022,
  consoleLog: "/var/lib/svc/vms/vm1/console.log",
  meta: { image: "debian-test", memory_mb: 768, cpus: 2, disks_gb: [10, 5], nets: ["user", "default"], ssh_port: 40022, ssh_user: "root", vm_dir: "/var/lib/svc/vms/vm1" },
};

describe("libvirt domain XML", () => {
  it("round-trips memory, cpus, disks, networks and svc metadata", () => {
    const p = parseDomainXml(buildDomainXml(base));
    expect(p).toEqual({
      memoryMb: 768,
      cpus: 2,
      disks: [{ path: base.disks[0]!.path, device: "disk" }, { path: base.disks[1]!.path, device: "disk" }],
      networks: ["default"],
      meta: base.meta,
    });
  });

  it("forwards SSH only on 127.0.0.1 through an isolated user-mode network", () => {
    const xml = buildDomainXml(base);
    expect(xml).toContain("user,id=svcnet0,restrict=on,hostfwd=tcp:127.0.0.1:40022-:22");
    expect(buildDomainXml({ ...base, userNetPort: null })).not.toContain("qemu:commandline>");
  });

  it("uses TCG (type qemu) or kvm with host CPU as told", () => {
    expect(buildDomainXml(base)).toMatch(/^<domain type='qemu'/);
    expect(buildDomainXml({ ...base, virtType: "kvm" })).toContain("<cpu mode='host-passthrough'/>");
  });

  it("escapes hostile paths so they stay data", () => {
    const evil = "/tmp/a'b\"<c>&d";
    const xml = buildDomainXml({ ...base, disks: [{ path: evil, format: "qcow2" }], meta: { ...base.meta, vm_dir: evil } });
    expect(xml).not.toContain(evil);
    const p = parseDomainXml(xml);
    expect(p.disks[0]!.path).toBe(evil);
    expect(p.meta!.vm_dir).toBe(evil);
  });

  it("reads domains svc-vm did not create (no metadata, KiB memory)", () => {
    const foreign = "<domain type='kvm'><name>x</name><memory unit='KiB'>2097152</memory><vcpu placement='static'>4</vcpu><devices><disk type='file' device='disk'><source file='/v/x.qcow2'/></disk></devices></domain>";
    expect(parseDomainXml(foreign)).toEqual({ memoryMb: 2048, cpus: 4, disks: [{ path: "/v/x.qcow2", device: "disk" }], networks: [], meta: null });
  });
});
