import { createApiFixture, VM_DAG, type ApiFixture } from "./test-helpers";

let f: ApiFixture;
beforeAll(async () => {
  f = await createApiFixture("defcache");
});
afterAll(async () => {
  await f.close();
});

test("listDagDefinitions hands out the same definition while a DAG's hash is unchanged, and the new one as soon as its file changes", async () => {
  const first = await f.api.listDagDefinitions();
  const again = await f.api.listDagDefinitions();
  expect(again.map((d) => d.definition)).toEqual(first.map((d) => d.definition));
  // Read once per hash: the second listing did not parse the definitions again.
  expect(again[1]!.definition).toBe(first[1]!.definition);

  f.writeDag("vm_deploy.yaml", VM_DAG.replace("description: Deploy a VM", "description: Deploy a virtual machine"));
  await f.sync();
  const changed = await f.api.listDagDefinitions();
  expect(changed[1]!.definition.description).toBe("Deploy a virtual machine");
  expect(changed[0]!.definition).toBe(first[0]!.definition);
  // State comes fresh from each listing: pausing is seen at once.
  await f.api.setPaused("vm_deploy", false);
  expect((await f.api.listDagDefinitions())[1]).toMatchObject({ dag_id: "vm_deploy", is_paused: false, has_import_errors: false });
  // A broken file is reported while its last good definition is kept.
  f.writeDag("vm_deploy.yaml", "dag_id: vm_deploy\ntasks: [oops\n");
  await f.sync();
  expect((await f.api.listDagDefinitions())[1]).toMatchObject({ has_import_errors: true, definition: { description: "Deploy a virtual machine" } });
});
