import { readFileSync } from "node:fs";
import { join } from "node:path";
import { findPlugin } from "../src/registry";
import type { HostState, OsPlugin, PluginSettings } from "../src/types";

// Plans of the RHEL-family plugins from recorded checkState results (fixtures/state-*.json):
// plan() is a pure function of the state, so every dnf/systemctl/firewall-cmd/semanage/virsh step is checked.

const settings: PluginSettings = {
  imagesDir: "/var/lib/svc/images",
  ports: [8080, 8888],
  sshPort: 22,
  poolName: "default",
  poolDir: "/var/lib/libvirt/images",
  networkName: "default",
};
const state = (name: string) => JSON.parse(readFileSync(join(__dirname, "fixtures", `state-${name}.json`), "utf8")) as HostState;
const plugin = (name: string) => findPlugin(name) as OsPlugin;
const steps = (p: OsPlugin, s: HostState) => p.plan(s, p.desiredState(settings)).map((c) => [c.id, c.steps.map((x) => x.argv.join(" "))]);
const V = "virsh -c qemu:///system";

describe("RHEL-family plans from recorded host states", () => {
  it("a minimal Rocky 9 gets the missing packages, the images directory, libvirtd, both ports and the SELinux label", () => {
    expect(steps(plugin("rocky9"), state("rocky9-minimal"))).toEqual([
      ["packages", ["dnf install -y libvirt qemu-kvm virt-install ansible-core podman"]],
      ["directory:/var/lib/svc/images", ["install -d -m 0755 /var/lib/svc/images"]],
      ["service:libvirtd", ["systemctl enable --now libvirtd.service"]],
      ["firewall", ["firewall-cmd --permanent --add-port=8080/tcp", "firewall-cmd --permanent --add-port=8888/tcp", "firewall-cmd --reload"]],
      ["selinux:/var/lib/svc/images", ["semanage fcontext -a -t virt_image_t /var/lib/svc/images(/.*)?", "restorecon -R /var/lib/svc/images"]],
    ]);
  });

  it("the same minimal host under rhel9 plans the same steps: the EL 9 plugins share the package set", () => {
    const rocky = state("rocky9-minimal");
    const asRhel = { ...rocky, os: { id: "rhel", versionId: "9.4", prettyName: "RHEL 9.4" } };
    expect(steps(plugin("rhel9"), asRhel)).toEqual(steps(plugin("rocky9"), rocky));
    expect(steps(plugin("centos-stream9"), asRhel)).toEqual(steps(plugin("rocky9"), rocky));
  });

  it("an already prepared RHEL 9 host has an empty plan", () => {
    expect(plugin("rhel9").plan(state("rhel9-prepared"), plugin("rhel9").desiredState(settings))).toEqual([]);
  });

  it("an already prepared CentOS Stream 10 host (modular libvirt sockets) has an empty plan", () => {
    expect(plugin("centos-stream10").plan(state("centos-stream10-prepared"), plugin("centos-stream10").desiredState(settings))).toEqual([]);
  });

  it("a half-prepared CentOS Stream 10 host gets only what differs: podman, /dev/kvm, two sockets, 8888, a relabel, the pool start and network autostart", () => {
    expect(steps(plugin("centos-stream10"), state("centos-stream10-partial"))).toEqual([
      ["packages", ["dnf install -y podman"]],
      ["kvm-device", ["chgrp kvm /dev/kvm", "chmod 0660 /dev/kvm"]],
      ["service:libvirt", ["systemctl enable --now virtqemud.socket virtstoraged.socket"]],
      ["firewall", ["firewall-cmd --permanent --add-port=8888/tcp", "firewall-cmd --reload"]],
      ["selinux:/var/lib/svc/images", ["restorecon -R /var/lib/svc/images"]],
      ["libvirt-pool:default", [`${V} pool-start default`]],
      ["libvirt-network:default", [`${V} net-autostart default`]],
    ]);
  });

  it("an undefined pool and network are defined, built, started and autostarted", () => {
    const s = state("rhel9-prepared");
    s.libvirt = { reachable: true, pools: { default: null }, networks: { default: null } };
    expect(steps(plugin("rhel9"), s)).toEqual([
      [
        "libvirt-pool:default",
        [`${V} pool-define-as default dir --target /var/lib/libvirt/images`, `${V} pool-build default`, `${V} pool-start default`, `${V} pool-autostart default`],
      ],
      ["libvirt-network:default", [`${V} net-define /usr/share/libvirt/networks/default.xml`, `${V} net-start default`, `${V} net-autostart default`]],
    ]);
  });

  it("with SELinux disabled no semanage or restorecon step is planned", () => {
    const s = state("rocky9-minimal");
    s.selinux = { mode: "disabled", fcontextRules: [], labels: {} };
    expect(
      plugin("rocky9")
        .plan(s, plugin("rocky9").desiredState(settings))
        .map((c) => c.kind),
    ).not.toContain("selinux");
  });

  it("each RHEL plugin fits only its own release", () => {
    const fits = (os: { id: string; versionId: string }) => ["rhel9", "rhel10", "centos-stream9", "centos-stream10", "rocky9", "debian12"].filter((n) => plugin(n).matches(os));
    expect(fits({ id: "rhel", versionId: "9.5" })).toEqual(["rhel9"]);
    expect(fits({ id: "rhel", versionId: "10.0" })).toEqual(["rhel10"]);
    expect(fits({ id: "centos", versionId: "9" })).toEqual(["centos-stream9"]);
    expect(fits({ id: "centos", versionId: "10" })).toEqual(["centos-stream10"]);
    expect(fits({ id: "rocky", versionId: "9.4" })).toEqual(["rocky9"]);
    expect(fits({ id: "debian", versionId: "12" })).toEqual(["debian12"]);
    expect(fits({ id: "fedora", versionId: "41" })).toEqual([]);
  });
});
