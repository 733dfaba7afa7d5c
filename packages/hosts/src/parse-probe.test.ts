import { parseDf } from "./capacity-text";
import { parseFreeCell, parseImageList, parseNodeInfo, parseNodeMemStats } from "./parse-probe";

describe("probe parsers", () => {
  it("reads virsh nodeinfo", () => {
    const t = "CPU model:           x86_64\nCPU(s):              4\nCPU frequency:       2400 MHz\nMemory size:         8152812 KiB\n";
    expect(parseNodeInfo(t)).toEqual({ cpus: 4, memoryMb: 7961 });
    expect(() => parseNodeInfo("error: nope")).toThrow(/cannot read virsh nodeinfo/);
  });

  it("reads virsh nodememstats: free + buffers + cached", () => {
    const t = "total  :              8152812 KiB\nfree   :              1048576 KiB\nbuffers:               102400 KiB\ncached :              2097152 KiB\n";
    expect(parseNodeMemStats(t)).toEqual({ totalMb: 7961, freeMb: 3172 });
  });

  it("reads virsh freecell --all", () => {
    expect(parseFreeCell("    0:       2048 KiB\n    1:       4096 KiB\n--------------------\nTotal:       6144 KiB\n")).toBe(6);
  });

  it("reads df -B1 --output=size,avail", () => {
    expect(parseDf("    1B-blocks       Avail\n107374182400 53687091200\n")).toEqual({ totalGb: 100, freeGb: 50 });
    expect(() => parseDf("df: /x: No such file or directory\n")).toThrow(/cannot read df/);
  });

  it("lists images in svc-vm's layout, skipping downloads in progress and other files", () => {
    const t = ["alpha", "alpha/disk.qcow2", "alpha/vmlinuz", "beta.qcow2", "gamma/disk.raw", ".part", ".part/disk.qcow2", "notes.txt", "delta/readme", ""].join("\n");
    expect(parseImageList(t)).toEqual(["alpha", "beta", "gamma"]);
  });
});
