import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { createTestDb, startMoto, type Moto, type TestDb } from "@svc/testing";
import { runCli } from "../src/cli/run";
import { createCloudProbe } from "../src/cloud-probe";

// svc-hosts with the AWS driver's identity call (sts:GetCallerIdentity) against moto_server on
// 127.0.0.1: one moto open, one with IAM authentication on (so any key is refused as AWS would).
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
const withSecrets = { cloudProbe: createCloudProbe({ awsSecrets: () => KEYS }) };

beforeAll(async () => {
  [tdb, open, locked] = await Promise.all([createTestDb("cloudid"), startMoto(), startMoto({ auth: true })]);
  dir = mkdtempSync(join(os.tmpdir(), "svc-cloud-id-"));
  writeFileSync(join(dir, "known_hosts"), "");
  env = {
    DATABASE_URL: tdb.url,
    USER: "tester",
    SVC_SSH_HOST: "127.0.0.1",
    SVC_SSH_USER: "tester",
    SVC_SSH_KEY_PATH: join(dir, "ssh_key"),
    SVC_SSH_KNOWN_HOSTS: join(dir, "known_hosts"),
    SVC_VM_SSH_PRIVKEY: join(dir, "vm_key"),
  };
});

afterAll(async () => {
  await Promise.all([open?.stop(), locked?.stop()]);
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

  it("says plainly when the secrets file's credentials are not available to the process", async () => {
    const r = await cli({ cloudProbe: createCloudProbe() }, "info", "aws-test", "-o", "json");
    expect(r.json()).toMatchObject({ up: false, probe_error: expect.stringMatching(/SVC_SECRETS_FILE \(vault_aws_\*\), which this process does not read yet/) });
  });
});
