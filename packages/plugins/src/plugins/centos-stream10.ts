import { rhelFamilyPlugin } from "../rhel-family";

/** CentOS Stream 10: libvirt, qemu-kvm, virt-install, ansible-core and podman from dnf; firewalld; SELinux. */
export const centosStream10 = rhelFamilyPlugin({
  name: "centos-stream10",
  description: "CentOS Stream 10 host: hypervisor, Ansible, podman, firewalld ports, SELinux images label",
  osIds: ["centos"],
  major: "10",
});
