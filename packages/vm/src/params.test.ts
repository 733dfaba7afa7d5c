import { parseVmParams } from "./params";

describe("kcli-style -P parameters", () => {
  it("defaults to 512 MiB, 1 cpu, the image's disk and user networking", () => {
    expect(parseVmParams([])).toEqual({ memoryMb: 512, cpus: 1, disksGb: [], nets: ["user"] });
  });

  it("parses memory, numcpus, disk lists and network lists", () => {
    expect(parseVmParams(["memory=4096", "numcpus=2", "disks=[50,10]", "nets=[default,user]"])).toEqual({ memoryMb: 4096, cpus: 2, disksGb: [50, 10], nets: ["default", "user"] });
    expect(parseVmParams(["disks=20", "nets=default"])).toMatchObject({ disksGb: [20], nets: ["default"] });
  });

  it("rejects unknown keys, bad numbers and bad network names with the parameter named", () => {
    expect(() => parseVmParams(["colour=red"])).toThrow(/unknown parameter "colour=red"/);
    expect(() => parseVmParams(["memory=lots"])).toThrow(/-P memory: expected a whole number/);
    expect(() => parseVmParams(["numcpus=0"])).toThrow(/-P numcpus: 0 is out of range/);
    expect(() => parseVmParams(["nets=[$(id)]"])).toThrow(/invalid network name/);
    expect(() => parseVmParams(["nets=[]"])).toThrow(/at least one network/);
  });

  it("parses outbound=true|false for the user-mode NIC and refuses it without one", () => {
    expect(parseVmParams(["nets=[user,lab]", "outbound=true"])).toMatchObject({ nets: ["user", "lab"], userNetOutbound: true });
    expect(parseVmParams(["outbound=false"]).userNetOutbound).toBeUndefined();
    expect(() => parseVmParams(["outbound=yes"])).toThrow(/-P outbound: expected true or false/);
    expect(() => parseVmParams(["nets=[default]", "outbound=true"])).toThrow(/outbound needs user-mode networking/);
  });

  it("parses a boot ISO path and one MAC per network, in either order", () => {
    expect(parseVmParams(["iso=/var/lib/svc/clusters/ocp/agent.x86_64.iso"])).toMatchObject({ iso: "/var/lib/svc/clusters/ocp/agent.x86_64.iso", nets: ["user"] });
    expect(parseVmParams(["macs=[52:54:00:0a:1b:2c,52:54:00:0a:1b:2d]", "nets=[default,lab]"])).toMatchObject({
      nets: ["default", "lab"],
      macs: ["52:54:00:0a:1b:2c", "52:54:00:0a:1b:2d"],
    });
    expect(parseVmParams(["nets=[user]", "macs=52:54:00:0a:1b:2c"]).macs).toEqual(["52:54:00:0a:1b:2c"]);
  });

  it("rejects ISO paths that are relative, climb with '..' or carry control characters", () => {
    for (const bad of ["agent.iso", "./agent.iso", "/var/lib/../../etc/shadow", "/a/..", "/tmp/a\0b.iso", "/tmp/a\nb.iso", "", "-rf"]) {
      expect(() => parseVmParams([`iso=${bad}`])).toThrow(/invalid ISO path/);
    }
    expect(parseVmParams(["iso=/srv/isos/rhcos..live.iso"]).iso).toBe("/srv/isos/rhcos..live.iso");
  });

  it("rejects malformed, upper-case and multicast MACs, duplicates and a count that does not match nets", () => {
    for (const bad of ["52:54:00:0A:1B:2C", "52-54-00-0a-1b-2c", "52:54:00:0a:1b", "52:54:00:0a:1b:2c:3d", "zz:54:00:0a:1b:2c", "$(id)"]) {
      expect(() => parseVmParams([`macs=[${bad}]`])).toThrow(/invalid MAC address/);
    }
    expect(() => parseVmParams(["macs=[01:00:5e:00:00:01]"])).toThrow(/multicast/);
    expect(() => parseVmParams(["nets=[default,lab]", "macs=[52:54:00:0a:1b:2c]"])).toThrow(/one MAC per network \(2 nets, 1 macs\)/);
    expect(() => parseVmParams(["nets=[default,lab]", "macs=[52:54:00:0a:1b:2c,52:54:00:0a:1b:2c]"])).toThrow(/its own MAC/);
  });
});
