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
});
