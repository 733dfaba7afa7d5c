import { fcontextSpec, parseDpkgInstalled, parseListeners, parseFcontextRules, parseOpenPorts, parseOsRelease, parseRpmInstalled, parseVirshInfo, selinuxType } from "./parse";

// Recorded outputs of the probe commands on RHEL 9 and Debian 12 hosts.
describe("probe output parsers", () => {
  it("ss -Hltnp: each listening port with the processes that hold it (IPv4, IPv6, no process shown)", () => {
    const out = [
      'LISTEN 0      128          0.0.0.0:22         0.0.0.0:*    users:(("sshd",pid=5242,fd=3))',
      'LISTEN 0      128             [::]:2222          [::]:*    users:(("sshd",pid=7,fd=4),("sshd",pid=9,fd=4))',
      "LISTEN 0      128          0.0.0.0:2024       0.0.0.0:*",
      'LISTEN 0      80         127.0.0.1:3306       0.0.0.0:*    users:(("mariadbd",pid=3781,fd=21))',
      "",
    ].join("\n");
    expect(parseListeners(out)).toEqual([
      { port: 22, processes: ["sshd"] },
      { port: 2222, processes: ["sshd", "sshd"] },
      { port: 2024, processes: [] },
      { port: 3306, processes: ["mariadbd"] },
    ]);
  });

  it("reads os-release fields without sourcing, quotes removed", () => {
    expect(parseOsRelease('NAME="Rocky Linux"\nID="rocky"\nVERSION_ID="9.4"\nPRETTY_NAME="Rocky Linux 9.4 (Blue Onyx)"\n')).toEqual({
      id: "rocky",
      versionId: "9.4",
      prettyName: "Rocky Linux 9.4 (Blue Onyx)",
    });
  });

  it("counts a dpkg package as installed only with status 'install ok installed'", () => {
    const out = "virtinst\tinstall ok installed\npodman\tunknown ok not-installed\nqemu-utils\tdeinstall ok config-files\n";
    expect([...parseDpkgInstalled(out)]).toEqual(["virtinst"]);
  });

  it("reads rpm -q output, where missing packages print 'is not installed'", () => {
    const out = "libvirt\npackage qemu-kvm is not installed\nansible-core\n";
    expect([...parseRpmInstalled(out, ["libvirt", "qemu-kvm", "ansible-core"])]).toEqual(["libvirt", "ansible-core"]);
  });

  it("reads open ports from firewall-cmd and from an active ufw", () => {
    expect(parseOpenPorts("8080/tcp 9000-9010/tcp 53/udp\n", "firewalld")).toEqual(["8080/tcp", "9000-9010/tcp", "53/udp"]);
    const ufw =
      "Status: active\n\nTo                         Action      From\n--                         ------      ----\n8080/tcp                   ALLOW       Anywhere\n22                         ALLOW       Anywhere\n8080/tcp (v6)              ALLOW       Anywhere (v6)\n";
    expect(parseOpenPorts(ufw, "ufw")).toEqual(["8080/tcp"]);
  });

  it("reads local SELinux fcontext rules and a context's type", () => {
    const out =
      "SELinux fcontext                                   type               Context\n\n/var/lib/svc/images(/.*)?                          all files          system_u:object_r:virt_image_t:s0\n";
    expect(parseFcontextRules(out)).toEqual([`${fcontextSpec("/var/lib/svc/images/")}=virt_image_t`]);
    expect(selinuxType("system_u:object_r:var_lib_t:s0\n")).toBe("var_lib_t");
  });

  it("reads virsh pool-info and net-info", () => {
    expect(parseVirshInfo("Name:           default\nState:          running\nPersistent:     yes\nAutostart:      no\n")).toEqual({ active: true, autostart: false });
    expect(parseVirshInfo("Name:           default\nState:          inactive\nAutostart:      yes\n")).toEqual({ active: false, autostart: true });
    expect(parseVirshInfo("Name:           default\nActive:         yes\nPersistent:     yes\nAutostart:      yes\n")).toEqual({ active: true, autostart: true });
  });
});
