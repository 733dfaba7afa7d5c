import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { createDb, type Db } from "@svc/db";
import { createTestDb, type TestDb } from "@svc/testing";
import { runCli } from "../src/cli/run";
import { probeRecord } from "../src/contact";
import type { CloudProbeResult } from "../src/service";

// Cloud hosts in the inventory against a real Postgres. Nothing here contacts a host or a cloud:
// listings are --cached, and the cloud probe (who the credentials are) is given by the test where
// the bookkeeping of its answer is what is checked; the drivers' own probes are tested with them.

let tdb: TestDb;
let db: Db;
let dir: string;
let env: Record<string, string>;
let cloudProbe: ((h: { name: string }) => Promise<CloudProbeResult>) | undefined;

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string; json: () => any }> {
  let out = "";
  let err = "";
  const code = await runCli(
    argv,
    { out: (t) => (out += `${t}\n`), err: (t) => (err += `${t}\n`), env },
    { cloudProbe: (h) => (cloudProbe ? cloudProbe(h) : Promise.reject(new Error(`${h.name} was probed where no probe was expected`))) },
  );
  return { code, out, err, json: () => JSON.parse(out) };
}

const counts = async () => ({
  hosts: Number((await sql<{ n: string }>`select count(*) n from hypervisor_host`.execute(db)).rows[0]!.n),
  audit: Number((await sql<{ n: string }>`select count(*) n from audit_event where action = 'host.add'`.execute(db)).rows[0]!.n),
});

beforeAll(async () => {
  tdb = await createTestDb("cloudhosts");
  db = createDb(tdb.url, { max: 2 });
  dir = mkdtempSync(join(os.tmpdir(), "svc-cloud-hosts-"));
  writeFileSync(join(dir, "known_hosts"), "");
  writeFileSync(join(dir, "vm_key"), "not read by these tests\n", { mode: 0o600 });
  env = {
    DATABASE_URL: tdb.url,
    USER: "tester",
    SVC_SSH_HOST: "127.0.0.1",
    SVC_SSH_PORT: "22",
    SVC_SSH_USER: "tester",
    SVC_SSH_KEY_PATH: join(dir, "ssh_key"),
    SVC_SSH_KNOWN_HOSTS: join(dir, "known_hosts"),
    SVC_VM_SSH_PRIVKEY: join(dir, "vm_key"),
  };
});

afterEach(() => {
  cloudProbe = undefined;
});

afterAll(async () => {
  await db?.destroy();
  await tdb?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe("cloud hosts in the inventory", () => {
  it("adds an AWS region with its settings and the credentials mode, never credentials, and audits it", async () => {
    const r = await cli(
      "add",
      "aws-eu",
      "--provider",
      "aws",
      "--region",
      "eu-west-1",
      "--zone",
      "eu-west-1b",
      "--subnet",
      "subnet-0123456789abcdef0",
      "--security-group",
      "sg-0fedcba9876543210",
      "--endpoint",
      "http://127.0.0.1:4566",
      "--credentials",
      "default-chain",
      "--label",
      "tier=cloud",
      "--no-probe",
      "-o",
      "json",
    );
    expect(r).toMatchObject({ code: 0, err: "" });
    expect(r.json()).toMatchObject({
      name: "aws-eu",
      provider: "aws",
      provider_settings: {
        region: "eu-west-1",
        zone: "eu-west-1b",
        subnet: "subnet-0123456789abcdef0",
        security_group: "sg-0fedcba9876543210",
        endpoint: "http://127.0.0.1:4566",
        credentials: "default-chain",
      },
      address: "127.0.0.1",
      port: 4566,
      key_path: join(dir, "vm_key"),
      labels: { tier: "cloud" },
      host_key: null,
      up: null,
    });
    const row = await db.selectFrom("hypervisor_host").selectAll().where("name", "=", "aws-eu").executeTakeFirstOrThrow();
    expect(Object.keys(row.provider_settings).sort()).toEqual(["credentials", "endpoint", "region", "security_group", "subnet", "zone"]);
    const audit = await db.selectFrom("audit_event").select(["actor", "detail"]).where("target", "=", "host:aws-eu").executeTakeFirstOrThrow();
    expect(audit).toMatchObject({ actor: "cli:tester", detail: { provider: "aws", region: "eu-west-1", credentials: "default-chain" } });
  });

  it("takes credentials from the secrets file unless told otherwise, and reaches the region's public API by default", async () => {
    const r = await cli("add", "aws-us", "--provider", "aws", "--region", "us-east-2", "--no-probe", "-o", "json");
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ provider_settings: { region: "us-east-2", credentials: "secrets-file" }, address: "ec2.us-east-2.amazonaws.com", port: 443 });
  });

  it("adds Hetzner locations; two of them share the API's address, which libvirt hosts may not", async () => {
    const a = await cli("add", "hz-fsn", "--provider", "hetzner", "--location", "fsn1", "--network", "svc-net", "--no-probe", "-o", "json");
    const b = await cli("add", "hz-hel", "--provider", "hetzner", "--location", "hel1", "--no-probe", "-o", "json");
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(a.json()).toMatchObject({ provider: "hetzner", provider_settings: { location: "fsn1", network: "svc-net" }, address: "api.hetzner.cloud", port: 443 });
    expect(b.json().provider_settings).toEqual({ location: "hel1" });
    const libvirtTwin = (name: string) =>
      sql`insert into hypervisor_host (name, ssh_user, address, port, key_path, created_by) values (${name}, 'root', '192.0.2.7', 22, '/k', 'test')`.execute(db);
    await libvirtTwin("lv-one");
    await expect(libvirtTwin("lv-two")).rejects.toThrow(/hypervisor_host_address_port_key/);
    await db.deleteFrom("hypervisor_host").where("name", "=", "lv-one").execute();
  });

  it("adds a GCP zone and an Azure resource group with their settings, never credentials", async () => {
    const g = await cli(
      "add",
      "gc-ew1",
      "--provider",
      "gcp",
      "--project",
      "svc-test-1",
      "--zone",
      "europe-west1-b",
      "--network",
      "svc",
      "--endpoint",
      "http://127.0.0.1:8089",
      "--no-probe",
      "-o",
      "json",
    );
    expect(g).toMatchObject({ code: 0, err: "" });
    expect(g.json()).toMatchObject({
      provider: "gcp",
      provider_settings: { project: "svc-test-1", zone: "europe-west1-b", network: "svc", endpoint: "http://127.0.0.1:8089", credentials: "secrets-file" },
      address: "127.0.0.1",
      port: 8089,
    });
    const sub = "0b1f6471-1bf0-4dda-aec3-cb9272f09590";
    const a = await cli(
      "add",
      "az-we",
      "--provider",
      "azure",
      "--subscription",
      sub,
      "--location",
      "westeurope",
      "--resource-group",
      "svc-rg",
      "--vnet",
      "net1",
      "--subnet",
      "default",
      "--authority-host",
      "https://login.example.test",
      "--no-probe",
      "-o",
      "json",
    );
    expect(a).toMatchObject({ code: 0, err: "" });
    expect(a.json()).toMatchObject({
      provider: "azure",
      provider_settings: { subscription: sub, location: "westeurope", resource_group: "svc-rg", vnet: "net1", subnet: "default", authority_host: "https://login.example.test" },
      address: "management.azure.com",
      port: 443,
    });
    expect((await cli("list", "--cached")).out).toMatch(/gc-ew1\s+active\s+\S+\s+gcp:europe-west1-b[\s\S]*az-we\s+active\s+\S+\s+azure:westeurope|az-we[\s\S]*gc-ew1/);
    expect(
      (await cli("add", "gc-adc", "--provider", "gcp", "--project", "svc-test-1", "--zone", "us-central1-a", "--credentials", "adc", "--no-probe", "-o", "json")).json()
        .provider_settings,
    ).toEqual({
      project: "svc-test-1",
      zone: "us-central1-a",
      credentials: "adc",
    });
  });

  it("adds a cloud host reached through a bastion: its login and bastion in the settings, the bastion's given key pinned in the row", async () => {
    const key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl";
    const r = await cli(
      "add",
      "hz-jump",
      "--provider",
      "hetzner",
      "--location",
      "nbg1",
      "--bastion",
      "ops@bastion.example:2222",
      "--bastion-key",
      key,
      "--ssh-user",
      "root",
      "--no-probe",
      "-o",
      "json",
    );
    expect(r.code).toBe(0);
    expect(r.json()).toMatchObject({ provider_settings: { location: "nbg1", bastion: "ops@bastion.example:2222", ssh_user: "root" }, host_key: key });
    await db.deleteFrom("hypervisor_host").where("name", "=", "hz-jump").execute();
  });

  it("refuses Equinix with the date it was shut down, names the providers svc supports, and writes nothing", async () => {
    const before = await counts();
    const r = await cli("add", "--provider", "equinix");
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/Equinix Metal was shut down on 2026-06-30/);
    expect(r.err).toMatch(/libvirt, aws, hetzner, gcp, azure/);
    expect(await cli("add", "eq", "--provider", "equinix", "--region", "fr")).toMatchObject({ code: 2, err: expect.stringMatching(/shut down on 2026-06-30/) });
    expect(await cli("add", "o", "--provider", "openstack", "--region", "x")).toMatchObject({
      code: 2,
      err: expect.stringMatching(/unknown provider 'openstack': svc supports the providers libvirt, aws, hetzner, gcp, azure/),
    });
    expect(await counts()).toEqual(before);
  });

  it("refuses bad settings with exit 2, saying which, and writes nothing", async () => {
    const before = await counts();
    const bad: [string[], RegExp][] = [
      [["aws"], /region: /],
      [["aws", "--region", "Europe"], /an AWS region such as eu-west-1/],
      [["aws", "--region", "eu-west-1", "--zone", "us-east-1a"], /zone: the zone must be in the region/],
      [["aws", "--region", "eu-west-1", "--subnet", "net-1"], /subnet: a subnet id/],
      [["aws", "--region", "eu-west-1", "--security-group", "default; rm -rf /"], /security_group: a security group id/],
      [["aws", "--region", "eu-west-1", "--credentials", "AKIAEXAMPLE"], /credentials: secrets-file \(the default\) or default-chain/],
      [["aws", "--region", "eu-west-1", "--endpoint", "https://AKIA:secret@ec2.example"], /endpoint: an http\(s\) URL without credentials/],
      [["aws", "--region", "eu-west-1", "--endpoint", "file:///etc/passwd"], /endpoint: an http\(s\) URL/],
      [["aws", "--region", "eu-west-1", "--location", "fsn1"], /--location: not an option of a aws host/],
      [["aws", "--region", "eu-west-1", "--ssh", "root@h"], /--ssh: not an option of a aws host/],
      [["hetzner"], /location: /],
      [["hetzner", "--location", "Falkenstein"], /a Hetzner location such as fsn1/],
      [["hetzner", "--location", "fsn1", "--credentials", "default-chain"], /--credentials: not an option of a hetzner host/],
      [["hetzner", "--location", "fsn1", "--network", "a b"], /network: a network name or id/],
      [["gcp", "--zone", "europe-west1-b"], /project: /],
      [["gcp", "--project", "svc-test-1", "--zone", "europe-west1"], /a GCP zone such as europe-west1-b/],
      [["gcp", "--project", "Svc_Test", "--zone", "europe-west1-b"], /a GCP project id/],
      [
        ["gcp", "--project", "svc-test-1", "--zone", "europe-west1-b", "--credentials", "default-chain"],
        /credentials: secrets-file \(the default: vault_gcp_service_account_json\) or adc/,
      ],
      [["gcp", "--project", "svc-test-1", "--zone", "europe-west1-b", "--region", "x"], /--region: not an option of a gcp host/],
      [["azure", "--location", "westeurope", "--resource-group", "rg"], /subscription: /],
      [["azure", "--subscription", "not-a-guid", "--location", "westeurope", "--resource-group", "rg"], /a subscription id \(a GUID\)/],
      [["azure", "--subscription", "0b1f6471-1bf0-4dda-aec3-cb9272f09590", "--location", "West Europe", "--resource-group", "rg"], /an Azure location such as westeurope/],
      [["azure", "--subscription", "0b1f6471-1bf0-4dda-aec3-cb9272f09590", "--location", "westeurope"], /resource_group: /],
      [
        ["azure", "--subscription", "0b1f6471-1bf0-4dda-aec3-cb9272f09590", "--location", "westeurope", "--resource-group", "rg", "--subnet", "s1"],
        /subnet: a subnet needs its --vnet/,
      ],
      [
        ["azure", "--subscription", "0b1f6471-1bf0-4dda-aec3-cb9272f09590", "--location", "westeurope", "--resource-group", "rg", "--authority-host", "http://login.example"],
        /authority_host: Entra ID is reached over https only/,
      ],
      [
        ["azure", "--subscription", "0b1f6471-1bf0-4dda-aec3-cb9272f09590", "--location", "westeurope", "--resource-group", "rg", "--credentials", "adc"],
        /--credentials: not an option of a azure host/,
      ],
      [["hetzner", "--location", "fsn1", "--bastion", "127.0.0.1:22"], /bastion: user@host\[:port\]/],
      [["hetzner", "--location", "fsn1", "--bastion", "root@h:70000"], /bastion: the bastion's port is 1 to 65535/],
      [["hetzner", "--location", "fsn1", "--bastion-key", "ssh-ed25519 AAAA"], /--bastion-key goes with --bastion/],
      [["aws", "--region", "eu-west-1", "--ssh-user", "Root!"], /ssh_user: a login name/],
    ];
    for (const [args, err] of bad) {
      const r = await cli("add", "c1", "--provider", ...args);
      expect({ args, code: r.code, err: r.err }).toEqual({ args, code: 2, err: expect.stringMatching(err) });
    }
    expect(await cli("add", "lv", "--ssh", "root@h", "--key", "/k", "--region", "eu-west-1")).toMatchObject({ code: 2, err: expect.stringMatching(/--region: for cloud hosts/) });
    expect(await cli("add", "Bad_Name", "--provider", "hetzner", "--location", "fsn1")).toMatchObject({ code: 2, err: expect.stringMatching(/name: a host name/) });
    expect(await cli("add", "aws-eu", "--provider", "aws", "--region", "eu-west-1")).toMatchObject({ code: 4, err: expect.stringMatching(/already in the inventory/) });
    expect(await counts()).toEqual(before);
  });

  it("the database itself refuses credentials in a host's settings and settings on a libvirt host", async () => {
    const insert = (provider: string, settings: Record<string, string>) =>
      sql`insert into hypervisor_host (name, ssh_user, address, port, key_path, created_by, provider, provider_settings)
          values ('sneaky', 'svc', 'api.example', 443, '/k', 'test', ${provider}, ${JSON.stringify(settings)})`.execute(db);
    await expect(insert("aws", { region: "eu-west-1", credentials: "secrets-file", secret_access_key: "x" })).rejects.toThrow(/hypervisor_host_no_credentials/);
    await expect(insert("hetzner", { location: "fsn1", token: "x" })).rejects.toThrow(/hypervisor_host_no_credentials/);
    await expect(insert("libvirt", { region: "eu-west-1" })).rejects.toThrow(/hypervisor_host_provider_settings/);
    await expect(insert("equinix", {})).rejects.toThrow(/check constraint/);
    await expect(insert("gcp", { project: "p-12345", zone: "europe-west1-b", credentials: "secrets-file", private_key: "x" })).rejects.toThrow(/hypervisor_host_no_credentials/);
    await expect(insert("azure", { subscription: "s", location: "westeurope", resource_group: "rg", client_secret: "x" })).rejects.toThrow(/hypervisor_host_no_credentials/);
    await expect(insert("azure", { location: "westeurope" })).rejects.toThrow(/hypervisor_host_provider_settings/);
  });

  it("shows who a cloud host's credentials are, and marks it down with the provider's own error", async () => {
    cloudProbe = async (h) =>
      h.name === "hz-fsn" ? { up: true, identity: { project: "svc-test" } } : { up: false, error: "AuthFailure: AWS was not able to validate the provided access credentials" };
    const ok = await cli("info", "hz-fsn", "-o", "json");
    expect(ok.json()).toMatchObject({ up: true, identity: { project: "svc-test" }, probe_error: null });
    expect((await cli("info", "hz-fsn")).out).toMatch(/identity\s+project=svc-test/);
    const down = await cli("info", "aws-eu");
    expect(down.code).toBe(0);
    expect(down.out).toMatch(/up\s+down/);
    expect(down.out).toMatch(/probe_error\s+AuthFailure: AWS was not able to validate/);
    cloudProbe = undefined;
    const cached = (await cli("list", "--cached", "-o", "json")).json() as { name: string; probe_error: string | null }[];
    expect(cached.find((h) => h.name === "aws-eu")!.probe_error).toMatch(/^AuthFailure/);
    expect((await cli("list", "--cached")).out).toMatch(/aws-eu\s+active\s+down\?\s+aws:eu-west-1/);
  });

  it("never reaches a cloud host over SSH", async () => {
    const h = (await cli("info", "aws-eu", "--cached", "-o", "json")).json();
    expect(await probeRecord(h)).toEqual({ up: false, error: "a aws host is probed through its provider's API, not over SSH" });
  });

  it("removes a cloud host only with --force (its instances are not counted here yet), touching no instance", async () => {
    expect(await cli("remove", "hz-hel")).toMatchObject({ code: 4, err: expect.stringMatching(/is a hetzner host: .*--force/) });
    expect(await cli("remove", "hz-hel", "--force")).toMatchObject({ code: 0, out: expect.stringMatching(/removed/) });
    expect((await cli("info", "hz-hel", "--cached")).code).toBe(3);
  });

  it("documents the cloud options in add --help", async () => {
    const r = await cli("add", "--help");
    expect(r.code).toBe(0);
    for (const o of ["--provider", "--region", "--zone", "--subnet", "--security-group", "--endpoint", "--credentials", "--location", "--network"]) expect(r.out).toContain(o);
    expect(r.out).toMatch(/Equinix Metal was shut down on 2026-06-30/);
  });
});
