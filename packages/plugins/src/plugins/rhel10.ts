import { rhelFamilyPlugin } from "../rhel-family";

/** Red Hat Enterprise Linux 10: libvirt, qemu-kvm, virt-install, ansible-core and podman from dnf; firewalld; SELinux. */
export const rhel10 = rhelFamilyPlugin({
  name: "rhel10",
  description: "Red Hat Enterprise Linux 10 host: hypervisor, Ansible, podman, firewalld ports, SELinux images label",
  osIds: ["rhel"],
  major: "10",
});
