import {
  extractCpus,
  extractDays,
  extractDeploymentSize,
  extractDiskGb,
  extractDnsForwarder,
  extractDomain,
  extractImage,
  extractMemoryMb,
  extractRegistryType,
  extractVersion,
} from "./value-extractors";

const toks = (s: string) => s.split(" ");

describe("value extractors", () => {
  test.each([
    ["a rhel 9 vm", "rhel9"],
    ["from rhel9", "rhel9"],
    ["red hat enterprise linux 8", "rhel8"],
    ["centos 10 stream", "centos10stream"],
    ["centos stream 9", "centos9stream"],
    ["centos10stream", "centos10stream"],
    ["fedora 40", "fedora40"],
    ["ubuntu 24.04", "ubuntu2404"],
    ["debian12", "debian12"],
    ["rocky linux 9", "rocky9"],
  ])("image %s → %s", (text, image) => {
    expect(extractImage(text)).toBe(image);
  });

  test("an image family without a release is not guessed", () => {
    expect(extractImage("an ubuntu vm")).toBeUndefined();
  });

  test.each([
    ["4 cpus", 4],
    ["2 vcpus", 2],
    ["8 cores", 8],
    ["two cpu", 2],
    ["cpus 6", 6],
  ])("cpus %s → %d", (text, n) => {
    expect(extractCpus(text)).toBe(n);
  });

  test("memory: GB and GiB are binary, MB is kept, and the word after the size decides", () => {
    expect(extractMemoryMb(toks("8gb of memory"))).toBe(8192);
    expect(extractMemoryMb(toks("16 gib ram and a 100gb disk"))).toBe(16384);
    expect(extractMemoryMb(toks("with 4096 mb memory"))).toBe(4096);
    expect(extractMemoryMb(toks("memory 2gb"))).toBe(2048);
    expect(extractMemoryMb(toks("a 50gb disk"))).toBeUndefined();
  });

  test("disk: a size followed or preceded by disk words, terabytes converted", () => {
    expect(extractDiskGb(toks("2048mb ram 20gb disk"))).toBe(20);
    expect(extractDiskGb(toks("50 gb of disk"))).toBe(50);
    expect(extractDiskGb(toks("1tb of storage"))).toBe(1024);
    expect(extractDiskGb(toks("8gb of memory"))).toBeUndefined();
  });

  test("domain: dotted names with an alphabetic top label; versions and addresses are not domains", () => {
    expect(extractDomain(toks("for lab.example.com"))).toBe("lab.example.com");
    expect(extractDomain(toks("openshift 4.19 forwarder 8.8.8.8"))).toBeUndefined();
  });

  test("registry type, version, deployment size, forwarder and days", () => {
    expect(extractRegistryType("deploy harbour")).toBe("harbor");
    expect(extractRegistryType("quay mirror registry")).toBe("mirror-registry");
    expect(extractVersion(toks("openshift 4.19"))).toBe("4.19");
    expect(extractVersion(toks("ubuntu 24.04"))).toBeUndefined();
    expect(extractDeploymentSize("on a single node")).toBe("sno");
    expect(extractDeploymentSize("three node cluster")).toBe("compact");
    expect(extractDeploymentSize("a full ha cluster")).toBe("full");
    expect(extractDnsForwarder("dns forwarder 9.9.9.9")).toBe("9.9.9.9");
    expect(extractDays("expiring within 14 days")).toBe(14);
  });
});
