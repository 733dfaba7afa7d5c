import { rhelFamilyPlugin } from "../rhel-family";

/** Rocky Linux 9: libvirt, qemu-kvm, virt-install, ansible-core and podman from dnf; firewalld; SELinux. */
export const rocky9 = rhelFamilyPlugin({
  name: "rocky9",
  description: "Rocky Linux 9 host: hypervisor, Ansible, podman, firewalld ports, SELinux images label",
  osIds: ["rocky"],
  major: "9",
});
