import { ALIASES, createAliasMatcher } from "./aliases";

describe("createAliasMatcher", () => {
  const match = createAliasMatcher([
    { dag_id: "vm_deployment", params: { action: "create" }, formats: ["(create|spin up) [a|an] [new] (vm|virtual machine) (called|named) {{vm_name}}"] },
    { dag_id: "health", formats: ["(is|are) {{*}} (ok|healthy)"] },
  ]);

  test("a StackStorm-style format captures {{param}} and adds the alias's fixed params", () => {
    expect(match("please spin up a new virtual machine named db-1 from rhel9")).toEqual([
      { dag_id: "vm_deployment", format: expect.any(String), params: { action: "create", vm_name: "db-1" } },
    ]);
  });

  test("optional words may be absent and {{*}} spans several words", () => {
    expect(match("create vm called x1")[0]?.params.vm_name).toBe("x1");
    expect(match("are all my lab machines ok")[0]?.dag_id).toBe("health");
  });

  test("aliases match whole tokens only", () => {
    expect(match("recreate a vm called web01")).toEqual([]);
  });

  test("the shipped aliases compile and recognise a delete of a named VM", () => {
    const hits = createAliasMatcher(ALIASES)("delete the vm named old-box");
    expect(hits[0]).toMatchObject({ dag_id: "vm_deployment", params: { action: "delete", vm_name: "old-box" } });
  });
});
