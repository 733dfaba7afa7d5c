import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startCatalogueRuntime, type CatalogueRuntime } from "./runtime-harness";

// lab_deployment delete of a lab that has members, on the real scheduler and worker with the real
// catalogue; check_members is the real lab-members.yml on the host (over SSH on 127.0.0.1), reading
// the members' records as vm_deployment writes them. No lab VM exists here, so a member's delete
// (leave_lab on <lab>-idm) fails: what must hold is that nothing of the lab goes before its members.
let rt: CatalogueRuntime;
let inventory: string;
const LAB = { lab_name: "dev1", domain: "dev1.example.org" };
const record = (vm: string, body: Record<string, unknown>) => writeFileSync(path.join(inventory, "products", `${vm}.json`), JSON.stringify({ vm_name: vm, ...body }));

beforeAll(async () => {
  inventory = mkdtempSync(path.join(tmpdir(), "svc-labmem-inv-"));
  mkdirSync(path.join(inventory, "products"));
  record("web02", { product: "member", lab: "dev1", cert: true });
  record("web01", { product: "member", lab: "dev1", cert: false });
  record("other1", { product: "member", lab: "other", cert: false });
  record("dev1-ca", { product: "ca", domain: "dev1.example.org" });
  rt = await startCatalogueRuntime("labmem", { SVC_INVENTORY_DIR: inventory });
  await rt.api.setPaused("vm_deployment", false);
}, 120_000);

afterAll(async () => {
  await rt?.close();
  rmSync(inventory, { recursive: true, force: true });
});

const childRunsOf = (runId: string) =>
  rt.tdb.db.selectFrom("dag_run").selectAll().where("parent_dag_id", "=", "lab_deployment").where("parent_run_id", "=", runId).orderBy("run_id").execute();

test("deleting a lab that has members is refused at check_members, naming its members (not another lab's), and nothing is deleted or triggered", async () => {
  const { run, states } = await rt.run("lab_deployment", { ...LAB, action: "delete" }, 180_000);
  expect(run.state).toBe("failed");
  expect(states).toMatchObject({ check_members: "failed", delete_members: "upstream_failed", delete_registry: "upstream_failed", delete_router: "upstream_failed" });
  const ti = (await rt.tis("lab_deployment", run.run_id)).check_members!;
  expect(ti.error).toContain("lab dev1 has members: web01, web02. Nothing was deleted.");
  expect(ti.error).toContain("with_members: true");
  expect(await childRunsOf(run.run_id)).toEqual([]);
  expect(readdirSync(path.join(inventory, "products")).sort()).toEqual(["dev1-ca.json", "other1.json", "web01.json", "web02.json"]);
}, 200_000);

test("with_members: check_members gives each member's delete; delete_members triggers one vm_deployment delete with lab per member before any product, and a member that cannot be removed stops the lab's delete", async () => {
  const { run, states } = await rt.run("lab_deployment", { ...LAB, action: "delete", with_members: true }, 600_000);
  const tis = await rt.tis("lab_deployment", run.run_id);
  expect(tis.check_members!.output).toMatchObject({
    stats: {
      lab_members: ["web01", "web02"],
      member_confs: [
        { action: "delete", vm_name: "web01", lab: "dev1", host: "" },
        { action: "delete", vm_name: "web02", lab: "dev1", host: "" },
      ],
    },
  });
  const children = await childRunsOf(run.run_id);
  expect(children.map((c) => [c.dag_id, c.parent_task_id, c.conf])).toEqual([
    ["vm_deployment", "delete_members", expect.objectContaining({ action: "delete", vm_name: "web01", lab: "dev1" })],
    ["vm_deployment", "delete_members", expect.objectContaining({ action: "delete", vm_name: "web02", lab: "dev1" })],
  ]);
  // Here no identity server exists, so each member's leave_lab fails: its record stays, no product is touched.
  expect(children.map((c) => c.state)).toEqual(["failed", "failed"]);
  expect(run.state).toBe("failed");
  expect(states).toMatchObject({
    check_members: "success",
    delete_members: "failed",
    delete_registry: "upstream_failed",
    delete_identity: "upstream_failed",
    delete_router: "upstream_failed",
  });
  expect(tis.delete_members!.error).toMatch(/^2 of 2 triggered run\(s\) of DAG vm_deployment failed: .*leave_lab/);
  expect(readdirSync(path.join(inventory, "products")).sort()).toEqual(["dev1-ca.json", "other1.json", "web01.json", "web02.json"]);
}, 660_000);
