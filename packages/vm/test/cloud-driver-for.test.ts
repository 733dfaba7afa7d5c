import { startMoto, type Moto } from "@svc/testing";
import { AwsDriver } from "../src/aws/driver";
import { cloudDriverFor } from "../src/cloud/driver-for";
import { VmInputError } from "../src/errors";
import { HetznerDriver } from "../src/hetzner/driver";
import { startHetznerFake, type HetznerFake } from "./hetzner-fake";

// cloudDriverFor: an inventory host (name, provider, provider_settings) and the secrets give the
// provider's driver, against moto_server and the Hetzner fake on 127.0.0.1.
jest.setTimeout(60_000);

const AWS_KEYS = { vault_aws_access_key_id: "AKIAIOSFODNN7EXAMPLE", vault_aws_secret_access_key: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" };
let moto: Moto;
let fake: HetznerFake;

beforeAll(async () => {
  [moto, fake] = await Promise.all([startMoto(), startHetznerFake()]);
});
afterAll(async () => {
  await Promise.all([moto?.stop(), fake?.stop()]);
});

describe("cloudDriverFor", () => {
  it("gives the AWS driver of an aws host, with the secrets file's keys, and it reaches the endpoint the host names", async () => {
    const host = { name: "aws-test", provider: "aws", provider_settings: { region: "eu-west-1", endpoint: moto.endpoint, credentials: "secrets-file" } };
    const d = await cloudDriverFor(host, AWS_KEYS);
    expect(d).toBeInstanceOf(AwsDriver);
    expect(await d.identity()).toMatchObject({ provider: "aws", region: "eu-west-1", account: "123456789012" });
    expect(await d.list()).toEqual([]);
  });

  it("gives the Hetzner driver of a hetzner host with vault_hcloud_token, and shows what the token's project holds", async () => {
    const host = { name: "hz-test", provider: "hetzner", provider_settings: { location: "fsn1", endpoint: fake.endpoint } };
    let reads = 0;
    const d = await cloudDriverFor(host, () => (reads++, { vault_hcloud_token: fake.token }));
    expect(d).toBeInstanceOf(HetznerDriver);
    expect(reads).toBe(1);
    expect(await d.identity()).toEqual({ provider: "hetzner", location: "fsn1", project_servers: "0", project_ssh_keys: "(none)" });
  });

  it("reads no secrets for a default-chain aws host", async () => {
    const host = { name: "aws-chain", provider: "aws", provider_settings: { region: "eu-west-1", credentials: "default-chain" } };
    const d = await cloudDriverFor(host, () => {
      throw new Error("the secrets were read");
    });
    expect(d.name).toBe("aws");
  });

  it("refuses a host that is not a cloud host, a missing setting and a missing key, naming what is missing", async () => {
    const err = (p: Promise<unknown>): Promise<Error> =>
      p.then(
        () => new Error("it resolved"),
        (e: unknown) => e as Error,
      );
    const libvirt = await err(cloudDriverFor({ name: "local", provider: "libvirt", provider_settings: {} }, {}));
    expect(libvirt).toBeInstanceOf(VmInputError);
    expect(libvirt.message).toBe("host 'local' has provider 'libvirt': not a cloud host (cloud providers: aws, hetzner)");
    expect((await err(cloudDriverFor({ name: "a", provider: "aws", provider_settings: {} }, AWS_KEYS))).message).toMatch(/host 'a' \(aws\) has no region/);
    expect((await err(cloudDriverFor({ name: "a", provider: "aws", provider_settings: { region: "eu-west-1" } }, { vault_aws_access_key_id: "AKIAX" }))).message).toMatch(
      /the secrets file has no vault_aws_secret_access_key/,
    );
    expect((await err(cloudDriverFor({ name: "h", provider: "hetzner", provider_settings: { location: "fsn1" } }, AWS_KEYS))).message).toMatch(
      /the secrets file has no vault_hcloud_token \(host 'h' is a Hetzner Cloud host\)/,
    );
  });
});
