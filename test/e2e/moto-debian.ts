import { DescribeInstancesCommand, EC2Client, RegisterImageCommand, type Instance } from "@aws-sdk/client-ec2";
import { startMoto, type Moto } from "@svc/testing";
import { AwsDriver } from "../../packages/vm/src/aws/driver";

// Apart from engine-env.ts: the AWS SDK costs a second or more to load, and only the AWS files need it.

/** moto's region and keys for the AWS e2e files, and the image map that finds the AMI startMotoDebian registers. */
export const MOTO_REGION = "eu-west-1";
export const MOTO_KEYS = { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" };
export const MOTO_IMAGES = { debian12: { owners: ["123456789012"], name: "debian-12-amd64-*" } };

/** moto_server on 127.0.0.1 with a Debian 12 AMI registered, an EC2 client on it, and the AWS driver of a host row there. */
export async function startMotoDebian(): Promise<{
  moto: Moto;
  ec2: EC2Client;
  instances(name: string): Promise<Instance[]>;
  driverOf(r: { provider_settings: Record<string, string | undefined> }): AwsDriver;
  stop(): Promise<void>;
}> {
  const moto = await startMoto();
  const ec2 = new EC2Client({ region: MOTO_REGION, endpoint: moto.endpoint, credentials: MOTO_KEYS });
  await ec2.send(new RegisterImageCommand({ Name: "debian-12-amd64-20260101-1", Architecture: "x86_64", RootDeviceName: "/dev/xvda", VirtualizationType: "hvm" }));
  return {
    moto,
    ec2,
    instances: async (name) =>
      ((await ec2.send(new DescribeInstancesCommand({ Filters: [{ Name: "tag:Name", Values: [name] }] }))).Reservations ?? []).flatMap((r) => r.Instances ?? []),
    driverOf: (r) =>
      new AwsDriver({ region: r.provider_settings.region!, endpoint: r.provider_settings.endpoint!, credentials: MOTO_KEYS, images: MOTO_IMAGES, pollMs: 100, timeoutMs: 30_000 }),
    async stop() {
      ec2.destroy();
      await moto.stop();
    },
  };
}
