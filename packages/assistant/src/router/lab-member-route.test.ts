import { loadEvalCatalog } from "../eval/load-catalog";
import { createOfflineRouter, type OfflineRouter } from "./offline-router";

let router: OfflineRouter;
beforeAll(async () => {
  router = createOfflineRouter((await loadEvalCatalog()).entries);
});

describe("a VM put into a lab or taken out of it (repository catalogue)", () => {
  test.each([
    ["create a vm called web01 in the dev1 lab", { action: "create", vm_name: "web01", lab: "dev1" }],
    ["join web01 to the dev1 lab", { action: "join", vm_name: "web01", lab: "dev1" }],
    ["remove web01 from the dev1 lab", { action: "leave", vm_name: "web01", lab: "dev1" }],
  ])("'%s' plans vm_deployment with %j", (sentence, params) => {
    expect(router.route(sentence)).toMatchObject({ status: "ready", dag_id: "vm_deployment", params });
  });

  test("taking a VM out of 'the dev1 lab' never deletes the lab itself", () => {
    const r = router.route("remove web01 from the dev1 lab");
    expect(r.dag_id).toBe("vm_deployment");
    expect(r.params).not.toHaveProperty("lab_name");
  });

  test("'remove web01 from the lab' names no lab: it asks which, and keeps what it understood", () => {
    expect(router.route("remove web01 from the lab")).toMatchObject({
      status: "needs_input",
      dag_id: "vm_deployment",
      params: { action: "leave", vm_name: "web01" },
      input: [{ field: "lab", rule: "required" }],
    });
  });

  test("a lab name the lab cannot take is asked again as typed, never shortened", () => {
    const r = router.route("create a vm called web01 in the Dev_1 lab");
    expect(r).toMatchObject({ status: "needs_input", params: { action: "create", vm_name: "web01" } });
    expect(r.params).not.toHaveProperty("lab");
    expect(r.input?.[0]).toMatchObject({ field: "lab", rule: "pattern" });
  });

  test("a lab as the thing to create or delete still goes to lab_deployment", () => {
    expect(router.route("delete the lab dev1")).toMatchObject({ dag_id: "lab_deployment", params: { action: "delete", lab_name: "dev1" } });
    expect(router.route("stand up a lab called dev1")).toMatchObject({ dag_id: "lab_deployment", params: { action: "create", lab_name: "dev1" } });
  });
});
