import { loadConfig, ConfigError, vmSettingsFromEnv } from "./index";

// The services (loadConfig), the VM CLI and the host operators read the same VM variables; before
// they shared this schema, each parsed them on its own and they disagreed (below).
describe("the VM settings are parsed once, by one schema, for every reader", () => {
  const env = {
    SVC_VM_DISKS_DIR: "/srv/vms",
    SVC_LIBVIRT_URI: "qemu+ssh://kvm1/system",
    SVC_VM_VIRT_TYPE: "qemu",
    SVC_VM_CLI: '["sudo","-n","svc-vm"]',
    SVC_VM_SSH_PRIVKEY: "/etc/svc/vm",
  };

  test("loadConfig carries the libvirt URI, the domain type, the VM CLI and the VM keys, as the VM CLI and host operators read them", () => {
    const fromServices = loadConfig(env).vm;
    const fromCli = vmSettingsFromEnv(env);
    expect(fromServices).toEqual(fromCli);
    expect(fromServices.libvirtUri).toBe("qemu+ssh://kvm1/system");
    expect(fromServices.virtType).toBe("qemu");
    expect(fromServices.cli).toEqual(["sudo", "-n", "svc-vm"]);
    expect(fromServices.sshPrivkey).toBe("/etc/svc/vm");
  });

  test("a bad SVC_VM_CLI or SVC_VM_VIRT_TYPE stops the services at start (ConfigError), not the first VM task", () => {
    for (const bad of [{ SVC_VM_CLI: "[1]" }, { SVC_VM_CLI: "[]" }, { SVC_VM_CLI: "[oops" }, { SVC_VM_VIRT_TYPE: "xen" }]) {
      expect(() => loadConfig(bad)).toThrow(ConfigError);
      expect(() => vmSettingsFromEnv(bad)).toThrow(/invalid VM settings: SVC_VM_(CLI|VIRT_TYPE)/);
    }
  });

  test("empty means unset for every reader, and only values the operator set are marked explicit", () => {
    const c = vmSettingsFromEnv({ SVC_VM_DISKS_DIR: "", SVC_LIBVIRT_URI: "" });
    expect(c.disksDir).toBe("/var/lib/svc/vms");
    expect(c.libvirtUri).toBe("qemu:///system");
    expect(c.explicit).toEqual({ disksDir: undefined, libvirtUri: undefined });
    expect(vmSettingsFromEnv(env).explicit).toEqual({ disksDir: "/srv/vms", libvirtUri: "qemu+ssh://kvm1/system" });
    expect(loadConfig({ SVC_VM_DISKS_DIR: "" }).vm.disksDir).toBe("/var/lib/svc/vms");
  });

  test("a plain SVC_VM_CLI is one path; none is svc-vm", () => {
    expect(vmSettingsFromEnv({ SVC_VM_CLI: " /opt/svc/bin/svc-vm " }).cli).toEqual(["/opt/svc/bin/svc-vm"]);
    expect(vmSettingsFromEnv({}).cli).toEqual(["svc-vm"]);
  });
});
