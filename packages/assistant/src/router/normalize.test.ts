import { createSpellFixer, editDistance, normalizeText, stem, tokenize } from "./normalize";

describe("normalizeText and tokenize", () => {
  test("NFKC folds full-width letters and typographic quotes, lower-cases, collapses spaces", () => {
    expect(normalizeText("  Ｄｅｐｌｏｙ   FreeIPA’s\tDNS ")).toBe("deploy freeipa's dns");
  });

  test("domains, hyphenated names and versions stay single tokens; punctuation is dropped", () => {
    expect(tokenize("set up idm for lab.example.com, vm db-1 (openshift 4.19)!")).toEqual(["set", "up", "idm", "for", "lab.example.com", "vm", "db-1", "openshift", "4.19"]);
  });
});

describe("stem", () => {
  test("folds plurals and -ing/-ed forms but keeps short words and -ss/-us endings", () => {
    expect(["vms", "certificates", "registries", "mirroring", "decommissioned", "gapped", "status", "dns", "ipa"].map(stem)).toEqual([
      "vm",
      "certificate",
      "registry",
      "mirror",
      "decommission",
      "gap",
      "status",
      "dns",
      "ipa",
    ]);
  });
});

describe("editDistance", () => {
  test("counts a transposition as one edit", () => {
    expect(editDistance("openshfit", "openshift")).toBe(1);
    expect(editDistance("freipa", "freeipa")).toBe(1);
    expect(editDistance("router", "registry")).toBeGreaterThan(2);
  });
});

describe("createSpellFixer", () => {
  const fix = createSpellFixer(["freeipa", "called", "registry", "openshift", "certificate", "deployment", "health", "router", "routes"]);

  test("repairs words of five letters or more within one edit (two from eight letters)", () => {
    expect(["freipa", "caled", "registy", "openshfit", "certficate", "deploymnet", "helth"].map(fix)).toEqual([
      "freeipa",
      "called",
      "registry",
      "openshift",
      "certificate",
      "deployment",
      "health",
    ]);
  });

  test("leaves short words, words with digits, known words and far-off words alone", () => {
    expect(["vm", "web01", "router", "weather", "jumpbox"].map(fix)).toEqual(["vm", "web01", "router", "weather", "jumpbox"]);
  });

  test("leaves a word alone when two different vocabulary words are equally close", () => {
    const tie = createSpellFixer(["cable", "table"]);
    expect(tie("xable")).toBe("xable");
  });
});
