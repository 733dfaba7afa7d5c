import { readFileSync } from "node:fs";
import path from "node:path";
import { defaultOperators } from "@svc/operators";
import type { DagDefinition } from "@svc/dags";
import { approvalNeeds, requiredApproverRole } from "../../packages/flows/src/pipeline/approval-needs";
import type { CatalogueDag } from "../../packages/flows/src/catalogue";
import { createApiFixture, type ApiFixture } from "../../packages/engine/src/api/test-helpers";

// A product opened to everyone (allow_from holding 0.0.0.0/0 or ::/0) needs an admin: the trigger
// refuses a lower caller (403, naming the value), a flow's approval needs an admin, and any other
// network needs no role. An allow_from entry that is not a network is refused, never dropped.
// The shipped DAG, its settings default made literal (the fixture syncs without settings).
const IDENTITY = readFileSync(path.resolve(__dirname, "../../dags/identity_deployment.yaml"), "utf8").replace('"{{ settings.domain }}"', "corp.example.org");
const role = (have: "user" | "op" | "admin") => (need: string) => ["viewer", "user", "op", "admin"].indexOf(have) >= ["viewer", "user", "op", "admin"].indexOf(need);

let f: ApiFixture;
beforeAll(async () => {
  f = await createApiFixture("allowfrom", { dags: { "identity_deployment.yaml": IDENTITY }, catalog: defaultOperators() });
});
afterAll(() => f.close());

let n = 0;
const trigger = (conf: Record<string, unknown>, have?: "user" | "op" | "admin") =>
  f.api.triggerDagRun("identity_deployment", { conf, runId: `manual__af_${++n}`, ...(have ? { callerHasRole: role(have) } : {}) });

test("a user or an op asking for allow_from 0.0.0.0/0 or ::/0 gets 403 naming the value, and no run is made", async () => {
  for (const [have, value] of [
    ["user", "0.0.0.0/0"],
    ["op", "0.0.0.0/0"],
    ["op", "::/0"],
  ] as const) {
    const refused = trigger({ allow_from: ["198.51.100.0/24", value] }, have);
    await expect(refused).rejects.toMatchObject({ code: "forbidden" });
    await expect(refused).rejects.toThrow(`conf.allow_from holding ${value} needs the role 'admin' or above`);
  }
  expect(await f.db.selectFrom("dag_run").select("run_id").where("dag_id", "=", "identity_deployment").execute()).toEqual([]);
});

test("an admin may open it to everyone; a user may open it to a network", async () => {
  await expect(trigger({ allow_from: ["0.0.0.0/0"] }, "admin")).resolves.toMatchObject({ state: "queued" });
  await expect(trigger({ allow_from: ["198.51.100.0/24", "2001:db8::/32"] }, "user")).resolves.toMatchObject({ state: "queued" });
});

test("an allow_from entry that is not a network is refused naming it, for any role", async () => {
  for (const bad of ["198.51.100.7", "198.51.100.7/24", "0/0"]) {
    const refused = trigger({ allow_from: ["198.51.100.0/24", bad] }, "admin");
    await expect(refused).rejects.toMatchObject({ code: "params_invalid" });
    await expect(refused).rejects.toThrow(`conf does not match the params of DAG 'identity_deployment': allow_from[1]: must match format "cidr"`);
  }
});

test("a flow with allow_from 0.0.0.0/0 needs an admin's approval; a network needs only the usual approver", async () => {
  const row = await f.db.selectFrom("dag").select("definition").where("dag_id", "=", "identity_deployment").executeTakeFirstOrThrow();
  const dag = { dag_id: "identity_deployment", is_paused: false, approval_reason: null, definition: row.definition as DagDefinition } as CatalogueDag;
  const open = approvalNeeds(dag, { allow_from: ["0.0.0.0/0"] });
  expect(open).toEqual([{ kind: "min_role", reason: "params.allow_from holding 0.0.0.0/0 may only be set by the role 'admin' or above", param: "allow_from", min_role: "admin" }]);
  expect(requiredApproverRole(open)).toBe("admin");
  expect(approvalNeeds(dag, { allow_from: ["198.51.100.0/24"] })).toEqual([]);
});

test("networks that together open more than a /8 of IPv4 or a /32 of IPv6 need an admin: two halves of the space are refused to an op as the whole is", async () => {
  const runs = async () => (await f.db.selectFrom("dag_run").select("run_id").where("dag_id", "=", "identity_deployment").execute()).length;
  const before = await runs();
  for (const [value, named] of [
    [["0.0.0.0/1", "128.0.0.0/1"], "0.0.0.0/1 (more IPv4 addresses than a /8)"],
    [["10.0.0.0/8", "11.0.0.0/8"], "10.0.0.0/8, 11.0.0.0/8 (more IPv4 addresses than a /8)"],
    [["::/1", "8000::/1"], "::/1 (more IPv6 addresses than a /32)"],
  ] as const) {
    const refused = trigger({ allow_from: value }, "op");
    await expect(refused).rejects.toMatchObject({ code: "forbidden" });
    await expect(refused).rejects.toThrow(`conf.allow_from holding ${named} needs the role 'admin' or above`);
  }
  expect(await runs()).toBe(before);
  await expect(trigger({ allow_from: ["10.0.0.0/8", "2001:db8::/32"] }, "user")).resolves.toMatchObject({ state: "queued" });
  await expect(trigger({ allow_from: ["0.0.0.0/1", "128.0.0.0/1"] }, "admin")).resolves.toMatchObject({ state: "queued" });
});

test("a flow with the space split in two needs an admin's approval, naming the span", async () => {
  const row = await f.db.selectFrom("dag").select("definition").where("dag_id", "=", "identity_deployment").executeTakeFirstOrThrow();
  const dag = { dag_id: "identity_deployment", is_paused: false, approval_reason: null, definition: row.definition as DagDefinition } as CatalogueDag;
  const split = approvalNeeds(dag, { allow_from: ["0.0.0.0/1", "128.0.0.0/1"] });
  expect(split).toEqual([
    {
      kind: "min_role",
      reason: "params.allow_from holding 0.0.0.0/1 (more IPv4 addresses than a /8) may only be set by the role 'admin' or above",
      param: "allow_from",
      min_role: "admin",
    },
  ]);
  expect(requiredApproverRole(split)).toBe("admin");
});
