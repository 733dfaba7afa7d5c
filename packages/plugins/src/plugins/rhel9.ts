import { rhelFamilyPlugin } from "../rhel-family";

/** Red Hat Enterprise Linux 9: libvirt, qemu-kvm, virt-install, ansible-core and podman from dnf; firewalld; SELinux. */
export const rhel9 = rhelFamilyPlugin({
  name: "rhel9",
  description: "Red Hat Enterprise Linux 9 host: hypervisor, Ansible, podman, firewalld ports, SELinux images label",
  osIds: ["rhel"],
  major: "9",
});
