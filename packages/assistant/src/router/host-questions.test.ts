import { CATALOG_FIXTURE } from "../catalog/catalog-fixture";
import { isHostRoomQuestion } from "./host-questions";
import { createOfflineRouter } from "./offline-router";

const QUESTIONS = [
  "how much room is left on each host?",
  "which host has the most free memory",
  "capacity of the hosts",
  "how full is host b",
  "Is there space on the hypervisors for another VM?",
  "show me the free resources per host",
  "what's the least loaded host",
];

const REQUESTS = [
  "create a vm on host b with 4 GB",
  "create a vm called web03 on the host with the most free memory",
  "can you create a vm on the emptiest host",
  "please deploy freeipa on host a, it has room",
  "provision a centos10stream VM with 4 cpus and 8GB of memory",
  "rm -rf / on the host",
  "run a health check",
  "is everything healthy?",
  "drain host b",
];

describe("isHostRoomQuestion", () => {
  test.each(QUESTIONS)("takes %j as a question about the hosts' room", (q) => expect(isHostRoomQuestion(q)).toBe(true));
  test.each(REQUESTS)("does not take %j as one", (q) => expect(isHostRoomQuestion(q)).toBe(false));
});

describe("the offline router", () => {
  const router = createOfflineRouter(CATALOG_FIXTURE);

  test("refuses a host room question with about_hosts, starting nothing", () => {
    const r = router.route("how much room is left on each host?");
    expect(r).toMatchObject({ status: "rejected", dag_id: null, refused: { kind: "out_of_scope", about_hosts: true } });
    expect(r.reason).toMatch(/POST \/chat/);
  });

  test("still routes a VM request that names a host to vm_deployment", () => {
    const r = router.route("create a vm called web04 on host b with 4 GB of memory");
    expect(r.dag_id).toBe("vm_deployment");
    expect(r.refused).toBeUndefined();
  });
});
