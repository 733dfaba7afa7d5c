import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { createTestDb, startMoto, type Moto, type TestDb } from "@svc/testing";
import { runCli } from "../src/cli/run";
import { createCloudProbe } from "../src/cloud-probe";
import { cliTestEnv, writeVaultedSecrets } from "./cli-test-env";
import { startHetznerFake, type HetznerFake } from "../../vm/test/hetzner-fake";

// svc-hosts with the AWS driver's identity call (sts:GetCallerIdentity) against moto_server on
// 127.0.0.1: one moto open, one with IAM authentication on (so any key is refused as AWS would); and
// Hetzner hosts against the fake API, whose token comes from a secrets file made by ansible-vault.
jest.setTimeout(120_000);

const KEYS = { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" };
let tdb: TestDb;
let open: Moto;
let locked: Moto;
let dir: string;
let env: Record<string, string>;

async function cli(deps: Parameters<typeof runCli>[2], ...argv: string[]) {
  let out = "";
  let err = "";
  const code = await runCli(argv, { out: (t) => (out += `${t}\n`), err: (t) => (err += `${t}\n`), env }, deps);
  return { code, out, err, json: () => JSON.parse(out) };
}
const withSecrets = { cloudProbe: createCloudProbe({ vault_aws_access_key_id: KEYS.accessKeyId, vault_aws_secret_access_key: KEYS.secretAccessKey }) };
let hz: HetznerFake;

beforeAll(async () => {
  [tdb, open, locked, hz] = await Promise.all([createTestDb("cloudid"), startMoto(), startMoto({ auth: true }), startHetznerFake()]);
  dir = mkdtempSync(join(os.tmpdir(), "svc-cloud-id-"));
  writeFileSync(join(dir, "known_hosts"), "");
  writeVaultedSecrets(dir, `vault_hcloud_token: ${hz.token}\nvault_aws_access_key_id: ${KEYS.accessKeyId}\nvault_aws_secret_access_key: ${KEYS.secretAccessKey}\n`);
  env = { ...cliTestEnv(tdb.url, dir, "ssh_key"), SVC_VAULT_PASSWORD_FILE: join(dir, "vault.pass") };
});

afterAll(async () => {
  await Promise.all([open?.stop(), locked?.stop(), hz?.stop()]);
  await tdb?.drop();
  rmSync(dir, { recursive: true, force: true });
});

describe("svc-hosts and the AWS identity", () => {
  it("add and info show the account and ARN the credentials are, before anything is created", async () => {
    const r = await cli(withSecrets, "add", "aws-test", "--provider", "aws", "--region", "eu-west-1", "--endpoint", open.endpoint, "-o", "json");
    expect(r).toMatchObject({ code: 0, err: "" });
    expect(r.json()).toMatchObject({
      up: true,
      probe_error: null,
      identity: { provider: "aws", account: "123456789012", arn: expect.stringMatching(/^arn:aws:sts::123456789012:/) },
    });
    const info = await cli(withSecrets, "info", "aws-test");
    expect(info.out).toMatch(/identity\s+provider=aws region=eu-west-1 account=123456789012 arn=arn:aws:sts::123456789012:/);
    expect(info.out).not.toContain(KEYS.secretAccessKey);
  });

  it("a host whose credentials the provider refuses is down with the provider's own message, never up", async () => {
    const r = await cli(withSecrets, "add", "aws-bad", "--provider", "aws", "--region", "eu-west-1", "--endpoint", locked.endpoint);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /host 'aws-bad' added: aws eu-west-1, but it is down: aws eu-west-1: GetCallerIdentity: InvalidClientTokenId: The security token included in the request is invalid/,
    );
    const listed = (await cli(withSecrets, "list", "-o", "json")).json() as { name: string; up: boolean }[];
    expect(listed.filter((h) => h.name.startsWith("aws-")).map((h) => [h.name, h.up])).toEqual([
      ["aws-bad", false],
      ["aws-test", true],
    ]);
  });

  it("reads the keys from the vault-encrypted secrets file when no source is given (the CLI's own)", async () => {
    const r = await cli({}, "info", "aws-test", "-o", "json");
    expect(r.json()).toMatchObject({ up: true, identity: { account: "123456789012" } });
    expect(r.out + r.err).not.toContain(KEYS.secretAccessKey);
  });

  it("says which key is missing when the secrets file lacks it", async () => {
    const r = await cli({ cloudProbe: createCloudProbe({}) }, "info", "aws-test", "-o", "json");
    expect(r.json()).toMatchObject({ up: false, probe_error: expect.stringMatching(/the secrets file has no vault_aws_access_key_id and vault_aws_secret_access_key/) });
  });
});

describe("svc-hosts and the Hetzner token", () => {
  it("add and info show what the token's project holds (Hetzner has no whoami)", async () => {
    const r = await cli({}, "add", "hz-test", "--provider", "hetzner", "--location", "fsn1", "--endpoint", hz.endpoint, "-o", "json");
    expect(r).toMatchObject({ code: 0, err: "" });
    expect(r.json()).toMatchObject({ up: true, probe_error: null, identity: { provider: "hetzner", location: "fsn1", project_servers: "0", project_ssh_keys: "(none)" } });
    const info = await cli({}, "info", "hz-test");
    expect(info.out).toMatch(/identity\s+provider=hetzner location=fsn1 project_servers=0 project_ssh_keys=\(none\)/);
    expect(info.out).not.toContain(hz.token);
  });

  it("a token the API refuses marks the host down with Hetzner's own error (401 unauthorized)", async () => {
    const bad = { cloudProbe: createCloudProbe({ vault_hcloud_token: "not-the-token" }) };
    const r = await cli(bad, "add", "hz-bad", "--provider", "hetzner", "--location", "fsn1", "--endpoint", hz.endpoint);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/host 'hz-bad' added: hetzner fsn1, but it is down: hetzner GET \/servers\?per_page=1: unauthorized: unable to authenticate/);
    expect(r.out).not.toContain("not-the-token");
    const listed = (await cli(bad, "list", "-o", "json")).json() as { name: string; up: boolean }[];
    expect(listed.find((h) => h.name === "hz-bad")?.up).toBe(false);
  });
});
