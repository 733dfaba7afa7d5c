import { fileAccessAdvice, libvirtDeniedAdvice } from "./permission-advice";

const root = { uid: 0, user: "root" };
const alice = { uid: 1000, user: "alice" };

describe("permission advice names the real cause", () => {
  test("root denied by libvirt is told that qemu must read the images and disks, never to use sudo", () => {
    const msg = libvirtDeniedAdvice("qemu:///system", "Cannot access storage file: Permission denied", ["/var/lib/svc/images", "/var/lib/svc/vms"], root);
    expect(msg).toMatch(/qemu runs as its own user/);
    expect(msg).toContain("/var/lib/svc/images and /var/lib/svc/vms");
    expect(msg).toMatch(/chmod 755/);
    expect(msg).not.toMatch(/sudo/);
  });

  test("a non-root user denied by libvirt is named and told to run as root", () => {
    const msg = libvirtDeniedAdvice("qemu:///system", "authentication unavailable", [], alice);
    expect(msg).toMatch(/^user alice may not manage VMs at qemu:\/\/\/system/);
    expect(msg).toMatch(/sudo svc-vm/);
  });

  test("root that cannot write a directory is told to look at the mount and the security policy, not sudo", () => {
    const msg = fileAccessAdvice("/var/lib/svc/vms/web01", "EROFS", root);
    expect(msg).toMatch(/^root cannot write \/var\/lib\/svc\/vms\/web01 \(EROFS\)/);
    expect(msg).toMatch(/read-only/);
    expect(msg).not.toMatch(/sudo/);
  });

  test("a non-root user that cannot write the disks directory is named, with both ways out", () => {
    const msg = fileAccessAdvice("/var/lib/svc/vms/web01", "EACCES", alice);
    expect(msg).toMatch(/^user alice cannot write \/var\/lib\/svc\/vms\/web01 \(EACCES\)/);
    expect(msg).toMatch(/sudo svc-vm/);
    expect(msg).toMatch(/SVC_VM_DISKS_DIR/);
  });
});
