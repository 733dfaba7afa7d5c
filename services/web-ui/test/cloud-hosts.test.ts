import request from "supertest";
import type { Express } from "express";
import { createEngineApi } from "@svc/engine";
import { createHostService } from "@svc/hosts";
import { defaultOperators } from "@svc/operators";
import { createTestDb, recordingNotifier, type TestDb } from "@svc/testing";
import { createWebUiApp } from "../src/app";

// Cloud hosts in /api/v1/hosts and on /hosts: provider and region shown, up or down with the
// provider's error, and never a credential (not even one a row smuggled into its settings).
let tdb: TestDb;
let app: Express;
const TOKEN = "viewer-token-1";

beforeAll(async () => {
  tdb = await createTestDb("webcloud");
  const api = createEngineApi({ db: tdb.db, notifier: recordingNotifier(), dagsDir: "/nonexistent", catalog: defaultOperators(), maxPageLimit: 100 });
  const hosts = createHostService({ db: tdb.db });
  await hosts.addCloud(
    { name: "aws-eu", provider: "aws", settings: { region: "eu-west-1", zone: "eu-west-1a" }, key_path: "/etc/svc/id_ed25519" },
    { probe: false, actor: "test" },
  );
  await hosts.addCloud({ name: "hz-fsn", provider: "hetzner", settings: { location: "fsn1" }, key_path: "/etc/svc/id_ed25519" }, { probe: false, actor: "test" });
  await tdb.db
    .updateTable("hypervisor_host")
    .set({ probe_error: "unauthorized: unable to authenticate", probed_at: new Date().toISOString() })
    .where("name", "=", "hz-fsn")
    .execute();
  // The table refuses the credential keys it knows (hypervisor_host_no_credentials) ...
  await expect(
    tdb.db
      .updateTable("hypervisor_host")
      .set({ provider_settings: JSON.stringify({ region: "eu-west-1", secret_access_key: "x" }) })
      .where("name", "=", "aws-eu")
      .execute(),
  ).rejects.toThrow(/hypervisor_host_no_credentials/);
  // ... and keys it does not know, written around the schema, are still never shown.
  await tdb.db
    .updateTable("hypervisor_host")
    .set({
      provider_settings: JSON.stringify({
        region: "eu-west-1",
        zone: "eu-west-1a",
        credentials: "secrets-file",
        api_secret_key: "wJalrXUtnFEMI-SMUGGLED",
        hcloud_token: "tok-SMUGGLED",
      }),
    })
    .where("name", "=", "aws-eu")
    .execute();
  app = createWebUiApp({ api, hosts, auth: { apiToken: TOKEN, apiTokenRole: "viewer" }, ui: { db: tdb.db } });
});
afterAll(async () => tdb?.drop());

const get = (u: string) => request(app).get(u).set("Authorization", `Bearer ${TOKEN}`);

test("GET /api/v1/hosts gives each cloud host's provider and region, its settings without anything secret", async () => {
  const r = await get("/api/v1/hosts").expect(200);
  const byName = Object.fromEntries((r.body.hosts as { name: string }[]).map((h) => [h.name, h]));
  expect(byName["aws-eu"]).toMatchObject({ provider: "aws", region: "eu-west-1", provider_settings: { region: "eu-west-1", zone: "eu-west-1a", credentials: "secrets-file" } });
  expect(byName["hz-fsn"]).toMatchObject({ provider: "hetzner", region: "fsn1", probe_error: "unauthorized: unable to authenticate" });
  expect(JSON.stringify(r.body)).not.toMatch(/SMUGGLED|api_secret_key|hcloud_token/);
  const one = await get("/api/v1/hosts/aws-eu").expect(200);
  expect(one.body).toMatchObject({ name: "aws-eu", provider: "aws", region: "eu-west-1" });
  expect(JSON.stringify(one.body)).not.toMatch(/SMUGGLED/);
});

test("/hosts shows a cloud host's provider and region, up or down with the provider's error, and no capacity", async () => {
  const r = await get("/hosts").expect(200);
  const row = (name: string) => new RegExp(`<tr data-host="${name}"[\\s\\S]*?</tr>`).exec(r.text)?.[0] ?? "";
  expect(row("aws-eu")).toContain('data-provider="aws"');
  expect(row("aws-eu")).toMatch(/aws <span class="mono">eu-west-1<\/span>/);
  expect(row("aws-eu")).toMatch(/<span class="state s-success">up<\/span> <span class="muted small">identity not checked yet<\/span>/);
  expect(row("hz-fsn")).toMatch(/<span class="state s-failed">down<\/span> <span class="small probe-error">unauthorized: unable to authenticate<\/span>/);
  expect(row("hz-fsn")).toContain("a hetzner account: no host capacity");
  expect(r.text).not.toMatch(/SMUGGLED/);
});
