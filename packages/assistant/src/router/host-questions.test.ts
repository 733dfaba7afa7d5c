import { CATALOG_FIXTURE } from "../catalog/catalog-fixture";
import { isHostRoomQuestion, readHostQuestion } from "./host-questions";
import { createOfflineRouter } from "./offline-router";

const QUESTIONS = [
  "how much room is left on each host?",
  "which host has the most free memory",
  "capacity of the hosts",
  "how full is host b",
  "Is there space on the hypervisors for another VM?",
  "show me the free resources per host",
  "what's the least loaded host",
  "do we have enough disk and memory on the KVM host?",
  "is host b running out of disk?",
  "wie viel Platz ist noch auf den Hosts?",
  "¿cuánta memoria libre queda en los hipervisores?",
];

const FIT_QUESTIONS: [string, Record<string, number>][] = [
  ["would a vm with 32 GB of ram and 8 vcpus fit anywhere?", { memory_mb: 32768, cpus: 8 }],
  ["where can I fit a 16 gig vm?", { memory_mb: 16384 }],
  ["can any host take a vm with 4 cpus, 8gb memory and 200gb disk?", { cpus: 4, memory_mb: 8192, disk_gb: 200 }],
  ["which hypervisor should a 2 vcpu / 4 GB vm land on?", { cpus: 2, memory_mb: 4096 }],
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
  test.each(FIT_QUESTIONS)("reads %j as where a VM of %j would fit", (q, fit) => expect(readHostQuestion(q)).toEqual({ fit }));
  test("a room question that states no size asks for no fit", () => expect(readHostQuestion("how much room is left on each host?")).toEqual({}));
  test("an order stating a size is no question", () => expect(readHostQuestion("create a vm with 16 GB on the host with room")).toBeNull());
});

describe("the offline router", () => {
  const router = createOfflineRouter(CATALOG_FIXTURE);

  test("refuses a host room question with about_hosts, starting nothing", () => {
    const r = router.route("how much room is left on each host?");
    expect(r).toMatchObject({ status: "rejected", dag_id: null, refused: { kind: "out_of_scope", about_hosts: true } });
    expect(r.reason).toMatch(/POST \/chat/);
  });

  test("refuses a fit question with about_hosts and the size it asks about, starting nothing", () => {
    const r = router.route("would a vm with 32 GB of ram and 8 vcpus fit anywhere?");
    expect(r).toMatchObject({ status: "rejected", dag_id: null, refused: { about_hosts: true, about_fit: { memory_mb: 32768, cpus: 8 } } });
  });

  test("an expiry question is the health check's certificate report, never a CA", () => {
    for (const q of ["any TLS certs going stale soon?", "any ssl certificates that will lapse within 60 days?"]) {
      expect({ q, ...router.route(q) }).toMatchObject({ q, status: "ready", dag_id: "infrastructure_health_check", params: { checks: ["certificates"] } });
    }
    expect(router.route("renew the TLS certificate of the registry").dag_id).not.toBe("infrastructure_health_check");
  });

  test("still routes a VM request that names a host to vm_deployment", () => {
    const r = router.route("create a vm called web04 on host b with 4 GB of memory");
    expect(r.dag_id).toBe("vm_deployment");
    expect(r.refused).toBeUndefined();
  });
});
