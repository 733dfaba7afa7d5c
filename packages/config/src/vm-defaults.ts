/**
 * Defaults of the VM settings, shared by the services (loadConfig), the VM CLI (which reads only
 * its own variables) and the host scripts (through `svc-config`), so that all of them agree.
 */
export const VM_DEFAULTS = {
  imagesDir: "/var/lib/svc/images",
  disksDir: "/var/lib/svc/vms",
  image: "centos10stream",
  network: "default",
  libvirtUri: "qemu:///system",
} as const;
