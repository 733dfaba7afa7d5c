import request from "supertest";
import type { Express } from "express";
import { createEngineApi } from "@svc/engine";
import { createHostService } from "@svc/hosts";
import { defaultOperators } from "@svc/operators";
import { createTestDb, recordingNotifier, startSshd, type TestDb, type TestSshd } from "@svc/testing";
import { createWebUiApp } from "../src/app";
import { expectProblem } from "./helpers";

// /api/v1/hosts against a real Postgres and a private sshd (the host added), reaching libvirt's
// test driver (test:///default) on this machine: viewers read, only admin changes.
let tdb: TestDb;
let sshd: TestSshd;
let admin: Express;
let viewer: Express;
let op: Express;
let open: Express;

beforeAll(async () => {
  tdb = await createTestDb("webhosts");
  sshd = await startSshd();
  const api = createEngineApi({ db: tdb.db, notifier: recordingNotifier(), dagsDir: "/nonexistent", catalog: defaultOperators(), maxPageLimit: 100 });
  const hosts = createHostService({ db: tdb.db });
  admin = createWebUiApp({ api, hosts, auth: { apiToken: "admin-token-1", apiTokenRole: "admin" } });
  viewer = createWebUiApp({ api, hosts, auth: { apiToken: "viewer-token-1", apiTokenRole: "viewer" } });
  op = createWebUiApp({ api, hosts, auth: { apiToken: "op-token-1", apiTokenRole: "op" } });
  open = createWebUiApp({ api, auth: { apiToken: "admin-token-1", apiTokenRole: "admin" } });
});

afterAll(async () => {
  await sshd?.stop();
  await tdb?.drop();
});

const as = (app: Express, token: string) => ({
  get: (u: string) => request(app).get(u).set("Authorization", `Bearer ${token}`),
  post: (u: string, b: object = {}) => request(app).post(u).set("Authorization", `Bearer ${token}`).send(b),
  del: (u: string) => request(app).delete(u).set("Authorization", `Bearer ${token}`),
});
const A = () => as(admin, "admin-token-1");
const V = () => as(viewer, "viewer-token-1");
const O = () => as(op, "op-token-1");
/** The host's last probe time in Postgres: a probe writes it, a read leaves it alone. */
const probedAt = async (name: string) => (await tdb.db.selectFrom("hypervisor_host").select("probed_at").where("name", "=", name).executeTakeFirstOrThrow()).probed_at;
const body = (): Record<string, unknown> => ({
  name: "lab2",
  ssh_user: sshd.user,
  address: sshd.host,
  port: sshd.port,
  key_path: sshd.keyPath,
  libvirt_uri: "test:///default",
  labels: { zone: "b" },
});

describe("/api/v1/hosts", () => {
  it("admin adds a host: its key is pinned on first contact and it is probed", async () => {
    const r = await A().post("/api/v1/hosts", body());
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: "lab2", up: true, host_key: sshd.hostPublicKey, labels: { zone: "b" }, created_by: "token" });
    expect(r.body.last_probe).toMatchObject({ vcpus_total: 16, vm_count: 0 });
    expectProblem(await A().post("/api/v1/hosts", body()), 409, /already in the inventory/);
  });

  it("viewers list and read from the inventory, without contacting a host", async () => {
    const before = await probedAt("lab2");
    const l = await V().get("/api/v1/hosts");
    expect(l.status).toBe(200);
    expect(l.body).toMatchObject({ total_entries: 1, hosts: [{ name: "lab2", state: "active", up: null }] });
    expect((await V().get("/api/v1/hosts/lab2?probe=false")).body).toMatchObject({ name: "lab2" });
    expect(await probedAt("lab2")).toEqual(before);
    expectProblem(await V().get("/api/v1/hosts/nope"), 404, /not in the inventory/);
    expectProblem(await V().get("/api/v1/hosts/Bad_Name"), 400, /name/);
  });

  it("a read with probe=true answers 405 naming the POST, and probes nothing (a cross-site <img> cannot fire a probe)", async () => {
    const before = await probedAt("lab2");
    for (const [url, allow, post] of [
      ["/api/v1/hosts?probe=true", "GET, POST", "POST /api/v1/hosts/~/probe"],
      ["/api/v1/hosts/lab2?probe=true", "GET, DELETE", "POST /api/v1/hosts/lab2/probe"],
    ] as const) {
      for (const who of [V(), A()]) {
        const r = await who.get(url);
        expectProblem(r, 405, new RegExp(post.replace(/[/~]/g, "\\$&")));
        expect(r.body).toMatchObject({ title: "Method Not Allowed", type: expect.stringMatching(/#method_not_allowed$/) });
        expect(r.headers.allow).toBe(allow);
      }
    }
    expect(await probedAt("lab2")).toEqual(before);
  });

  it("an op probes one host or every host (~) with a POST, and the probe is recorded; a viewer may not (403)", async () => {
    const before = await probedAt("lab2");
    expectProblem(await V().post("/api/v1/hosts/lab2/probe"), 403, /'op'/);
    expectProblem(await V().post("/api/v1/hosts/~/probe"), 403, /'op'/);
    expect(await probedAt("lab2")).toEqual(before);
    const one = await O().post("/api/v1/hosts/lab2/probe");
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ name: "lab2", up: true, last_probe: { vcpus_total: 16 } });
    const after = await probedAt("lab2");
    expect(new Date(after!).getTime()).toBeGreaterThan(new Date(before!).getTime());
    const all = await O().post("/api/v1/hosts/~/probe");
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total_entries: 1, hosts: [{ name: "lab2", up: true }] });
    expectProblem(await O().post("/api/v1/hosts/nope/probe"), 404, /not in the inventory/);
    expectProblem(await O().post("/api/v1/hosts/Bad_Name/probe"), 400, /name/);
  });

  it("viewers may not add, drain or remove (403), and nothing changes", async () => {
    expectProblem(await V().post("/api/v1/hosts", { ...body(), name: "lab3" }), 403);
    expectProblem(await V().post("/api/v1/hosts/lab2/drain"), 403);
    expectProblem(await V().del("/api/v1/hosts/lab2"), 403);
    expect((await V().get("/api/v1/hosts/lab2")).body.state).toBe("active");
  });

  it("validates the body with problem JSON naming the field", async () => {
    expectProblem(await A().post("/api/v1/hosts", { ...body(), name: "lab3", port: 70000 }), 400, /port/);
    expectProblem(await A().post("/api/v1/hosts", { ...body(), name: "lab3", key_path: "relative/key" }), 400, /key_path: an absolute path/);
    expectProblem(await A().post("/api/v1/hosts", { ...body(), name: "lab3", extra: 1 }), 400, /extra/);
    expectProblem(await A().post("/api/v1/hosts", { ...body(), name: "lab3", port: 1 }), 503, /cannot be reached, nothing recorded/);
  });

  it("admin drains and activates; DELETE refuses 'local' and removes a host without svc VMs", async () => {
    expect((await A().post("/api/v1/hosts/lab2/drain")).body).toMatchObject({ name: "lab2", state: "draining" });
    expect((await A().post("/api/v1/hosts/lab2/activate")).body).toMatchObject({ state: "active" });
    expectProblem(await A().del("/api/v1/hosts/local"), 409, /cannot be removed/);
    const d = await A().del("/api/v1/hosts/lab2");
    expect(d.status).toBe(200);
    expect(d.body).toEqual({ removed: "lab2", vm_count: 0 });
    expectProblem(await A().get("/api/v1/hosts/lab2"), 404);
  });

  it("answers 503 where the inventory is not wired", async () => {
    expectProblem(await as(open, "admin-token-1").get("/api/v1/hosts"), 503, /host inventory is not available/);
  });
});
