import {
  AuthorizeSecurityGroupIngressCommand,
  CreateSecurityGroupCommand,
  DeleteSecurityGroupCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  DescribeVpcsCommand,
  type EC2Client,
  type IpPermission,
  type Tag,
} from "@aws-sdk/client-ec2";
import { isIP } from "node:net";
import type { FirewallRule } from "../types";

/** The name of a VM's own security group. */
export const awsGroupName = (vm: string): string => `svc-${vm}`;

/** A VM's firewall as ingress permissions: one per rule, IPv4 and IPv6 sources apart. */
export function awsPermissions(rules: readonly FirewallRule[]): IpPermission[] {
  return rules.map((r) => ({
    IpProtocol: r.proto,
    FromPort: r.port,
    ToPort: r.toPort ?? r.port,
    IpRanges: r.from.filter((c) => isIP(c.split("/")[0]!) === 4).map((CidrIp) => ({ CidrIp })),
    Ipv6Ranges: r.from.filter((c) => isIP(c.split("/")[0]!) === 6).map((CidrIpv6) => ({ CidrIpv6 })),
  }));
}

/** The VPC the instance lands in: the subnet's, else the region's default VPC. */
async function vpcOf(ec2: EC2Client, subnet: string | undefined): Promise<string> {
  if (subnet) {
    const s = (await ec2.send(new DescribeSubnetsCommand({ SubnetIds: [subnet] }))).Subnets?.[0];
    if (s?.VpcId) return s.VpcId;
  }
  const v = (await ec2.send(new DescribeVpcsCommand({ Filters: [{ Name: "is-default", Values: ["true"] }] }))).Vpcs?.[0];
  if (!v?.VpcId) throw new Error("no default VPC in the region (give the host --subnet)");
  return v.VpcId;
}

/** Make the VM's security group (tagged like the instance) with exactly these ingress rules; its id. */
export async function createVmGroup(ec2: EC2Client, vm: string, rules: readonly FirewallRule[], tags: Tag[], subnet?: string): Promise<string> {
  const VpcId = await vpcOf(ec2, subnet);
  const g = await ec2.send(
    new CreateSecurityGroupCommand({
      GroupName: awsGroupName(vm),
      Description: `svc: the firewall of VM ${vm}`,
      VpcId,
      TagSpecifications: [{ ResourceType: "security-group", Tags: tags }],
    }),
  );
  if (rules.length) await ec2.send(new AuthorizeSecurityGroupIngressCommand({ GroupId: g.GroupId, IpPermissions: awsPermissions(rules) }));
  return g.GroupId!;
}

/** Remove the VM's security group (found by its name and the svc tag); none is no error. */
export async function removeVmGroup(ec2: EC2Client, vm: string): Promise<void> {
  const r = await ec2.send(
    new DescribeSecurityGroupsCommand({
      Filters: [
        { Name: "group-name", Values: [awsGroupName(vm)] },
        { Name: "tag:managed-by", Values: ["svc"] },
      ],
    }),
  );
  for (const g of r.SecurityGroups ?? []) await ec2.send(new DeleteSecurityGroupCommand({ GroupId: g.GroupId }));
}
