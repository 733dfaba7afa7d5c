import { readSizes } from "./sizes";

describe("readSizes: units grammar converted to MiB, GiB and a CPU count", () => {
  test.each([
    ["16 gigs of ram", { memory_mb: 16384 }],
    ["a vm with 2gb", { memory_mb: 2048 }],
    ["1.5 GB memory", { memory_mb: 1536 }],
    ["4096MB", { memory_mb: 4096 }],
    ["512 MiB of memory", { memory_mb: 512 }],
    ["1 TiB of disk", { disk_gb: 1024 }],
    ["1tb of storage", { disk_gb: 1024 }],
    ["20480 mb disk", { disk_gb: 20 }],
    ["4 Go de RAM", { memory_mb: 4096 }],
    ["8 gigas", { memory_mb: 8192 }],
    ["acht GB RAM", { memory_mb: 8192 }],
  ])("%s", (text, want) => {
    expect(readSizes(text)).toMatchObject({ ...want, ranges: [] });
  });

  test("slang, slash groups and key=value forms", () => {
    expect(readSizes("a 4c/8g vm")).toMatchObject({ cpus: 4, memory_mb: 8192 });
    expect(readSizes("vm with 2/4/40")).toMatchObject({ cpus: 2, memory_mb: 4096, disk_gb: 40 });
    expect(readSizes("cpus=2 mem=2048")).toMatchObject({ cpus: 2, memory_mb: 2048 });
    expect(readSizes("ram=4g disk=60")).toMatchObject({ memory_mb: 4096, disk_gb: 60 });
    expect(readSizes("mem=8")).toMatchObject({ memory_mb: 8192 });
  });

  test("unlabelled sizes fill memory then disk; labels before or after win", () => {
    expect(readSizes("2 vcpus, 4096MB, 40G disk")).toMatchObject({ cpus: 2, memory_mb: 4096, disk_gb: 40 });
    expect(readSizes("16gb ram, 200 gb disk and 8 cores")).toMatchObject({ memory_mb: 16384, disk_gb: 200, cpus: 8 });
    expect(readSizes("16 GB per node")).toMatchObject({ memory_mb: 16384 });
  });

  test("a range is reported, not guessed", () => {
    expect(readSizes("2 to 4 cpus")).toEqual({ ranges: [{ field: "cpus", given: "2 to 4" }] });
    expect(readSizes("2-4 cpus").ranges[0]?.field).toBe("cpus");
  });

  test("versions, addresses and dates are not sizes", () => {
    expect(readSizes("openshift 4.19 forwarder 8.8.8.8")).toEqual({ ranges: [] });
    expect(readSizes("ubuntu 24.04 on 11/24")).toEqual({ ranges: [] });
  });
});
