import { assertForwards, forwardText, parseForward } from "./forwards";
import { parseVmParams } from "./params";
import { specDiff } from "./libvirt/spec-diff";
import { pickForwardPort } from "./libvirt/ports";
import dgram from "node:dgram";
import net from "node:net";

describe("port forwards", () => {
  it("parses PROTO/PORT and refuses anything else, naming the form", () => {
    expect(parseForward("tcp/636")).toEqual({ proto: "tcp", guestPort: 636 });
    expect(parseForward("udp/53")).toEqual({ proto: "udp", guestPort: 53 });
    for (const bad of ["sctp/53", "tcp/0", "tcp/65536", "53", "tcp/53;reboot", "TCP/53", ""]) {
      expect(() => parseForward(bad)).toThrow(/expected PROTO\/PORT/);
    }
  });

  it("takes forwards=[...] as a create parameter", () => {
    expect(parseVmParams(["nets=[user]", "forwards=[tcp/53,udp/53]"]).forwards).toEqual([
      { proto: "tcp", guestPort: 53 },
      { proto: "udp", guestPort: 53 },
    ]);
  });

  it("needs user-mode networking, refuses SSH's port and duplicates, and sorts the set", () => {
    expect(() => assertForwards([{ proto: "tcp", guestPort: 53 }], ["default"])).toThrow(/user-mode networking/);
    expect(() => assertForwards([{ proto: "tcp", guestPort: 22 }], ["user"])).toThrow(/SSH's/);
    expect(() => assertForwards([parseForward("udp/53"), parseForward("udp/53")], ["user"])).toThrow(/given twice/);
    expect(assertForwards([parseForward("tcp/636"), parseForward("udp/53"), parseForward("tcp/53")], ["user"]).map(forwardText)).toEqual(["tcp/53", "udp/53", "tcp/636"]);
  });

  it("makes a VM with other forwards a different VM, and the same set in another order the same one", () => {
    const meta = { image: "img", memory_mb: 512, cpus: 1, disks_gb: [], nets: ["user"], ssh_port: 4000, ssh_user: "root", vm_dir: "/x" };
    const spec = { name: "v", image: "img", memoryMb: 512, cpus: 1, disksGb: [], nets: ["user"], sshKeys: [] };
    const recorded = {
      ...meta,
      forwards: [
        { proto: "tcp" as const, guest_port: 53, host_port: 5000 },
        { proto: "udp" as const, guest_port: 53, host_port: 5000 },
      ],
    };
    expect(specDiff({ ...spec, forwards: [parseForward("udp/53"), parseForward("tcp/53")] }, recorded)).toBe("");
    expect(specDiff({ ...spec, forwards: [parseForward("tcp/53")] }, recorded)).toMatch(/^forwards: has \["tcp\/53","udp\/53"\], asked \["tcp\/53"\]$/);
    expect(specDiff(spec, meta)).toBe("");
  });

  it("picks one 127.0.0.1 port that a tcp listener and a udp socket can both bind, outside the taken set", async () => {
    const port = await pickForwardPort(new Set([1]), ["tcp", "udp"]);
    expect(port).toBeGreaterThan(1);
    const tcp = net.createServer();
    await new Promise<void>((resolve, reject) => (tcp.once("error", reject), tcp.listen(port, "127.0.0.1", resolve)));
    const udp = dgram.createSocket("udp4");
    await new Promise<void>((resolve, reject) => (udp.once("error", reject), udp.bind(port, "127.0.0.1", resolve)));
    tcp.close();
    udp.close();
  });
});
