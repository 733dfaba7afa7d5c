import { EC2Client, RegisterImageCommand } from "@aws-sdk/client-ec2";
import { startMoto, type Moto } from "@svc/testing";
import { AwsDriver } from "../src/aws/driver";
import { describeCloudPlan } from "../src/cloud-plan-text";
import { cloudDriverFor } from "../src/cloud/driver-for";
import { ImageNotFoundError, VmInputError } from "../src/errors";
import { HetznerDriver } from "../src/hetzner/driver";
import { startHetznerFake, type HetznerFake } from "./hetzner-fake";

// The plan a person approves names what the cloud would make: size from the provider's live list,
// its image for the OS name, and the hourly price where the API gives one. Nothing is created:
// moto and the Hetzner fake on 127.0.0.1 answer the reads; the test checks no server appeared.
jest.setTimeout(120_000);

const REGION = "eu-west-1";
const KEYS = { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" };
const MOTO_ACCOUNT = "123456789012";
let moto: Moto;
let fake: HetznerFake;
let aws: AwsDriver;
let hz: HetznerDriver;
let ami: string;

beforeAll(async () => {
  [moto, fake] = await Promise.all([startMoto(), startHetznerFake()]);
  const ec2 = new EC2Client({ region: REGION, endpoint: moto.endpoint, credentials: KEYS });
  ami = (await ec2.send(new RegisterImageCommand({ Name: "debian-12-amd64-20260101-2", Architecture: "x86_64", RootDeviceName: "/dev/xvda", VirtualizationType: "hvm" }))).ImageId!;
  aws = new AwsDriver({ region: REGION, endpoint: moto.endpoint, credentials: KEYS, images: { debian12: { owners: [MOTO_ACCOUNT], name: "debian-12-amd64-*" } } });
  hz = new HetznerDriver({ location: "fsn1", endpoint: fake.endpoint, token: fake.token });
});
afterAll(async () => {
  await Promise.all([moto?.stop(), fake?.stop()]);
});

describe("the Hetzner plan (fake API)", () => {
  it("names the smallest x86 type that fits, its hourly price in the location, and the image debian12 maps to", async () => {
    const p = await hz.plan({ image: "debian12", cpus: 2, memoryMb: 3000 });
    expect(p).toEqual({
      provider: "hetzner",
      region: "fsn1",
      size: { name: "cx23", cpus: 2, memory_mb: 4096 },
      image: { os: "debian12", mapping: "debian-12", id: "100" },
      hourly_price: { amount: "0.0071", net: "0.0060", currency: "EUR" },
      price_note: null,
    });
    expect(describeCloudPlan(p)).toBe("hetzner fsn1: size cx23 (2 vCPUs, 4096 MiB), image debian12 → debian-12 (100), 0.0060 EUR/hour net (0.0071 with VAT)");
    expect(fake.servers.size).toBe(0);
    expect(fake.requests.every((r) => r.method === "GET")).toBe(true);
  });

  it("the driver the factory makes for an inventory host plans the same, with the token from the secrets", async () => {
    const d = await cloudDriverFor({ name: "hz-test", provider: "hetzner", provider_settings: { location: "nbg1", endpoint: fake.endpoint } }, { vault_hcloud_token: fake.token });
    expect(await d.plan!({ image: "debian12", cpus: 3, memoryMb: 4096 })).toMatchObject({ region: "nbg1", size: { name: "cpx21" }, hourly_price: { net: "0.0060" } });
  });

  it("a retired size names the nearest offered; an OS without a mapping names those there are", async () => {
    await expect(hz.plan({ image: "debian12", cpus: 1, memoryMb: 512, size: "cx22" })).rejects.toThrow(VmInputError);
    await expect(hz.plan({ image: "debian12", cpus: 1, memoryMb: 512, size: "cx22" })).rejects.toThrow(/size 'cx22' is not offered in hetzner fsn1; nearest: cx23/);
    await expect(hz.plan({ image: "plan9", cpus: 1, memoryMb: 512 })).rejects.toThrow(ImageNotFoundError);
  });
});

describe("the AWS plan (moto)", () => {
  it("names the smallest instance type that fits from DescribeInstanceTypes, the owner and name filter and the AMI it finds, and says EC2 gives no price", async () => {
    const p = await aws.plan({ image: "debian12", cpus: 2, memoryMb: 4000 });
    expect(p).toMatchObject({
      provider: "aws",
      region: REGION,
      size: { cpus: expect.any(Number), memory_mb: expect.any(Number) },
      image: { os: "debian12", mapping: `owner ${MOTO_ACCOUNT}, name debian-12-amd64-*, newest first`, id: ami },
      hourly_price: null,
      price_note: expect.stringMatching(/^no price from the API/),
    });
    expect(p.size.cpus).toBeGreaterThanOrEqual(2);
    expect(p.size.memory_mb).toBeGreaterThanOrEqual(4000);
    expect(describeCloudPlan(p)).toMatch(
      new RegExp(
        `^aws eu-west-1: size ${p.size.name.replace(".", "\\.")} .*image debian12 → owner ${MOTO_ACCOUNT}, name debian-12-amd64-\\*, newest first \\(${ami}\\), no price from the API`,
      ),
    );
    expect(await aws.list({ all: true })).toEqual([]);
  });

  it("a size named directly is taken; an unknown one names the nearest", async () => {
    expect((await aws.plan({ image: "debian12", cpus: 1, memoryMb: 512, size: "t3.micro" })).size.name).toBe("t3.micro");
    await expect(aws.plan({ image: "debian12", cpus: 1, memoryMb: 512, size: "t3.mikro" })).rejects.toThrow(/size 't3.mikro' is not offered in aws eu-west-1; nearest: t3\./);
  });
});
