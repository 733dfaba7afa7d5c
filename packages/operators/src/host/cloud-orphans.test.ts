import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { loadConfig } from "@svc/config";
import { runCli as svcHosts } from "@svc/hosts/cli";
import { createTestDb, createTestOperatorContext, type TestDb } from "@svc/testing";
import { cliTestEnv } from "../../../hosts/test/cli-test-env";
import { startHetznerFake, type HetznerFake } from "../../../vm/test/hetzner-fake";
import { createCloudOrphansOperator } from "./cloud-orphans";

// cloud_orphans (infrastructure_health_check's cloud check) against a real inventory in Postgres and
// the Hetzner fake on 127.0.0.1: a server labelled managed-by=svc that no run holds is a finding with
// its price; a host whose token is refused is a finding too; neither fails the task.
jest.setTimeout(60_000);

let tdb: TestDb;
let hz: HetznerFake;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  [tdb, hz] = await Promise.all([createTestDb("cloudorph"), startHetznerFake()]);
  dir = mkdtempSync(join(os.tmpdir(), "svc-cloud-orphans-"));
  writeFileSync(join(dir, "known_hosts"), "");
  writeFileSync(join(dir, "vm_key"), "");
  writeFileSync(join(dir, "secrets.yml"), `vault_hcloud_token: ${hz.token}\n`);
  env = cliTestEnv(tdb.url, dir);
  const quiet = { out: () => undefined, err: () => undefined, env };
  expect(await svcHosts(["add", "hz-test", "--provider", "hetzner", "--location", "fsn1", "--endpoint", hz.endpoint, "--no-probe"], quiet)).toBe(0);
});

afterAll(async () => {
  await hz?.stop();
  await tdb?.drop();
  rmSync(dir, { recursive: true, force: true });
});

const api = (method: string, path: string, body?: unknown) =>
  fetch(`${hz.endpoint}${path}`, {
    method,
    headers: { authorization: `Bearer ${hz.token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

describe("cloud_orphans", () => {
  it("says there are none on the cloud hosts when no instance is svc's", async () => {
    const ctx = createTestOperatorContext(loadConfig(env));
    const out = await createCloudOrphansOperator().run({}, ctx);
    expect(out).toEqual({ orphans: [], unavailable: [], cloud_hosts: 1 });
    expect(ctx.text()).toBe("FINDING ok cloud: no orphaned instances on 1 cloud host(s)");
  });

  it("reports a managed-by=svc server no run holds as a warning finding with its age and hourly price", async () => {
    const r = await api("POST", "/servers", {
      name: "lost1",
      server_type: "cx23",
      image: "debian-12",
      location: "fsn1",
      labels: { "managed-by": "svc", "svc-dag-id": "vm_deployment", "svc-run-id": "gone" },
    });
    expect(r.status).toBe(201);
    await api("POST", "/servers", { name: "theirs", server_type: "cx23", image: "debian-12", location: "fsn1", labels: {} });
    const ctx = createTestOperatorContext(loadConfig(env));
    const out = (await createCloudOrphansOperator().run({}, ctx)) as { orphans: unknown[] };
    expect(out.orphans).toEqual([
      expect.objectContaining({
        host: "hz-test",
        provider: "hetzner",
        region: "fsn1",
        name: "lost1",
        size: "cx23",
        hourly_price: { amount: expect.any(String), net: expect.any(String), currency: "EUR" },
      }),
    ]);
    expect(ctx.text()).toMatch(
      /^FINDING warning cloud: orphaned instance lost1 on hz-test \(hetzner fsn1, \d+, cx23, \S+, up \d+m, \d+\.\d+ EUR\/h\): its run gone of vm_deployment is not in svc's records$/,
    );
  });

  it("reports a cloud host whose token is refused as not checked, with the provider's message, and does not fail", async () => {
    writeFileSync(join(dir, "bad.yml"), "vault_hcloud_token: not-the-token\n");
    const ctx = createTestOperatorContext(loadConfig({ ...env, SVC_SECRETS_FILE: join(dir, "bad.yml") }));
    const out = (await createCloudOrphansOperator().run({}, ctx)) as { orphans: unknown[] };
    expect(out.orphans).toEqual([]);
    expect(ctx.text()).toMatch(
      /^FINDING warning cloud: host hz-test \(hetzner fsn1\) not checked: hetzner GET \/servers\?label_selector=.*: unauthorized: unable to authenticate$/,
    );
    expect(ctx.text()).not.toContain("not-the-token");
  });
});
