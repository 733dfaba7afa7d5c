import { rhelFamilyPlugin } from "../rhel-family";

/** CentOS Stream 9: libvirt, qemu-kvm, virt-install, ansible-core and podman from dnf; firewalld; SELinux. */
export const centosStream9 = rhelFamilyPlugin({
  name: "centos-stream9",
  description: "CentOS Stream 9 host: hypervisor, Ansible, podman, firewalld ports, SELinux images label",
  osIds: ["centos"],
  major: "9",
});
