import { findGivenImagePath, findGivenName } from "./given-names";
import { brokenRule } from "./given-value-rules";

describe("findGivenName: the name as typed, after markers in four languages", () => {
  test.each([
    ["create a vm called web01", "web01"],
    ["eine VM namens web01", "web01"],
    ["crea una vm llamada db-7", "db-7"],
    ["une vm appelée cache-2", "cache-2"],
    ["lege eine VM mit dem Namen app02 an", "app02"],
    ["create a vm named 'web03'", "web03"],
    ["vm_name=api-1", "api-1"],
    ["create a vm called Web01", "web01"],
  ])("%s → %s", (text, name) => {
    expect(findGivenName(text)?.value).toBe(name);
  });

  test.each([
    ["create a vm called ../../etc/passwd", /not a path/],
    ["create a vm called -oProxyCommand=x", /must not start with '-'/],
    ['create a vm called "my web server"', /must not contain spaces/],
    ["create a vm called web_01!", /lowercase letters/],
    [`create a vm called ${"a".repeat(64)}`, /at most 63/],
    ["create a vm called a", /a name must follow 'called'/],
  ])("%s breaks a rule: never coerced", (text, rule) => {
    const g = findGivenName(text);
    expect(g?.value).toBeUndefined();
    expect(g?.issue?.field).toBe("vm_name");
    expect(g?.issue?.rule).toMatch(rule);
  });

  test("a name in cluster context is the cluster's; shell syntax is flagged for rejection", () => {
    expect(findGivenName("an openshift cluster called edge-1")).toMatchObject({ field: "cluster_name", value: "edge-1" });
    expect(findGivenName("create a vm called $(id)")?.shell).toBe(true);
  });

  test("a name typed with a space ('web 01') is asked again, not cut to its first word", () => {
    expect(findGivenName("create a vm called web 01")).toMatchObject({ field: "vm_name", raw: "web 01", issue: { field: "vm_name", rule: "vm_name must not contain spaces" } });
    expect(findGivenName("create a vm called web01 2 cpus")).toMatchObject({ value: "web01" });
    expect(findGivenName("make a vm named db 2 gb ram")).toMatchObject({ value: "db" });
  });

  test("a name that says nothing is no name ('the name of the vm')", () => {
    expect(findGivenName("what is the name of the vm")).toBeUndefined();
  });
});

describe("value rules", () => {
  test("control characters and newlines, quotes and paths are named in the rule", () => {
    expect(brokenRule("vm_name", "a\nb")).toMatch(/one line/);
    expect(brokenRule("vm_name", "it's")).toMatch(/quotes/);
    expect(brokenRule("domain", "lab.example.com")).toBeNull();
    expect(brokenRule("cluster_name", "c".repeat(32))).toMatch(/at most 31/);
  });

  test("an image given as a URL or path is asked again instead of being replaced by the default", () => {
    expect(findGivenImagePath("create a vm from https://images.example.com/rhel.qcow2")?.issue).toMatchObject({ field: "image" });
    expect(findGivenImagePath("create a vm from fedora40")).toBeUndefined();
  });
});
