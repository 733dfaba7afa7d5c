import { buildDomainXml, parseDomainXml, type DomainXmlOptions } from "./domain-xml";

const base: DomainXmlOptions = {
  name: "vm1",
  virtType: "qemu",
  memoryMb: 768,
  cpus: 2,
  disks: [
    { path: "/var/lib/svc/vms/vm1/root.qcow2", format: "qcow2" },
    { path: "/var/lib/svc/vms/vm1/data1.qcow2", format: "qcow2" },
  ],
  seedIso: null,
  iso: null,
  kernel: { kernel: "/img/vmlinuz", initrd: "/img/initrd.img", cmdline: "root=/dev/vda rw svc_ssh_key=abc" },
  networks: [{ name: "default", mac: null }],
  userNetPort: 40022,
  userNetMac: null,
  consoleLog: "/var/lib/svc/vms/vm1/console.log",
  meta: { image: "debian-test", memory_mb: 768, cpus: 2, disks_gb: [10, 5], nets: ["user", "default"], ssh_port: 40022, ssh_user: "root", vm_dir: "/var/lib/svc/vms/vm1" },
  owner: null,
};

describe("libvirt domain XML", () => {
  it("round-trips memory, cpus, disks, networks and svc metadata", () => {
    const p = parseDomainXml(buildDomainXml(base));
    expect(p).toEqual({
      memoryMb: 768,
      cpus: 2,
      disks: [
        { path: base.disks[0]!.path, device: "disk" },
        { path: base.disks[1]!.path, device: "disk" },
      ],
      networks: ["default"],
      macs: [],
      meta: base.meta,
      owner: null,
    });
  });

  it("forwards SSH and each recorded product port from 127.0.0.1 on the user-mode netdev, and keeps them in the metadata", () => {
    const forwards = [
      { proto: "tcp" as const, guest_port: 53, host_port: 41053 },
      { proto: "udp" as const, guest_port: 53, host_port: 41053 },
      { proto: "tcp" as const, guest_port: 636, host_port: 41636 },
    ];
    const xml = buildDomainXml({ ...base, meta: { ...base.meta, forwards } });
    expect(xml).toContain(
      "user,id=svcnet0,restrict=on,hostfwd=tcp:127.0.0.1:40022-:22,hostfwd=tcp:127.0.0.1:41053-:53,hostfwd=udp:127.0.0.1:41053-:53,hostfwd=tcp:127.0.0.1:41636-:636'",
    );
    expect(parseDomainXml(xml).meta?.forwards).toEqual(forwards);
  });

  it("marks the domain as managed by svc and records the creating task, also as libvirt rewrites it", () => {
    const owner = { dagId: "vm_deployment", runId: "manual__2024-01-01T00:00:00+00:00", taskId: "create_vm" };
    const xml = buildDomainXml({ ...base, owner });
    expect(xml).toContain(`<svc:owner managed_by='svc' dag_id='vm_deployment' run_id='manual__2024-01-01T00:00:00+00:00' task_id='create_vm'/>`);
    expect(parseDomainXml(xml).owner).toEqual(owner);
    // virsh dumpxml serialises metadata with double quotes and its own entities.
    const dumped = xml.replace(/<svc:owner [^>]*\/>/, `<svc:owner managed_by="svc" dag_id="d'1" run_id="r&quot;1" task_id="t"/>`);
    expect(parseDomainXml(dumped).owner).toEqual({ dagId: "d'1", runId: 'r"1', taskId: "t" });
    expect(buildDomainXml(base)).toContain("<svc:owner managed_by='svc'/>");
  });

  it("forwards SSH only on 127.0.0.1 through an isolated user-mode network", () => {
    const xml = buildDomainXml(base);
    expect(xml).toContain("user,id=svcnet0,restrict=on,hostfwd=tcp:127.0.0.1:40022-:22");
    expect(buildDomainXml({ ...base, userNetPort: null })).not.toContain("qemu:commandline>");
  });

  it("lets the guest connect out of its user-mode NIC (restrict=off) only when the metadata says so, and keeps that in the metadata", () => {
    const xml = buildDomainXml({ ...base, meta: { ...base.meta, user_net_outbound: true } });
    expect(xml).toContain("user,id=svcnet0,restrict=off,hostfwd=tcp:127.0.0.1:40022-:22'");
    expect(xml).not.toContain("restrict=on");
    expect(parseDomainXml(xml).meta?.user_net_outbound).toBe(true);
    expect(buildDomainXml({ ...base, meta: { ...base.meta, user_net_outbound: false } })).toContain("restrict=on,");
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
    const foreign =
      "<domain type='kvm'><name>x</name><memory unit='KiB'>2097152</memory><vcpu placement='static'>4</vcpu><devices><disk type='file' device='disk'><source file='/v/x.qcow2'/></disk></devices></domain>";
    expect(parseDomainXml(foreign)).toEqual({ memoryMb: 2048, cpus: 4, disks: [{ path: "/v/x.qcow2", device: "disk" }], networks: [], macs: [], meta: null, owner: null });
  });

  describe("an ISO on empty disks with pinned MACs", () => {
    const isoVm: DomainXmlOptions = {
      ...base,
      disks: [{ path: "/var/lib/svc/vms/vm1/root.qcow2", format: "qcow2" }],
      iso: "/var/lib/svc/clusters/ocp/agent.x86_64.iso",
      kernel: null,
      networks: [
        { name: "default", mac: "52:54:00:0a:1b:2c" },
        { name: "lab", mac: null },
      ],
      userNetMac: "52:54:00:aa:bb:cc",
    };

    it("attaches the ISO as a read-only IDE CD-ROM and boots from disk first, then the CD-ROM", () => {
      const xml = buildDomainXml(isoVm);
      expect(xml).toContain(`<disk type='file' device='cdrom'>
      <driver name='qemu' type='raw'/>
      <source file='/var/lib/svc/clusters/ocp/agent.x86_64.iso'/>
      <target dev='hdc' bus='ide'/>
      <readonly/>`);
      expect(xml).toMatch(/<os>\s*<type arch='x86_64' machine='pc'>hvm<\/type>\s*<boot dev='hd'\/>\s*<boot dev='cdrom'\/>\s*<\/os>/);
      expect(xml).not.toContain("<kernel>");
    });

    it("puts the cloud-init seed after the ISO when an image needs both", () => {
      const xml = buildDomainXml({ ...isoVm, seedIso: "/var/lib/svc/vms/vm1/seed.iso" });
      expect(xml.indexOf("<target dev='hdc' bus='ide'/>")).toBeGreaterThan(xml.indexOf("agent.x86_64.iso"));
      expect(xml.indexOf("<target dev='hdd' bus='ide'/>")).toBeGreaterThan(xml.indexOf("seed.iso"));
    });

    it("pins each libvirt NIC's MAC and the user-mode NIC's MAC; unpinned NICs get none", () => {
      const xml = buildDomainXml(isoVm);
      expect(xml).toContain(`<interface type='network'>
      <mac address='52:54:00:0a:1b:2c'/>
      <source network='default'/>`);
      expect(xml).toContain(`<interface type='network'>
      <source network='lab'/>`);
      expect(xml).toContain("virtio-net-pci,netdev=svcnet0,bus=pci.0,addr=0x1f,mac=52:54:00:aa:bb:cc");
    });

    it("reads back the ISO as a cdrom and the MACs in interface order", () => {
      const p = parseDomainXml(buildDomainXml(isoVm));
      expect(p.disks).toEqual([
        { path: "/var/lib/svc/vms/vm1/root.qcow2", device: "disk" },
        { path: isoVm.iso, device: "cdrom" },
      ]);
      expect(p.networks).toEqual(["default", "lab"]);
      expect(p.macs).toEqual(["52:54:00:0a:1b:2c"]);
    });

    it("boots an ISO without disks (a live ISO) from the CD-ROM", () => {
      const xml = buildDomainXml({ ...isoVm, disks: [] });
      expect(xml).not.toContain("device='disk'");
      expect(xml).toContain("<boot dev='cdrom'/>");
    });
  });
});
