import { DescribeInstanceTypesCommand, type EC2Client } from "@aws-sdk/client-ec2";
import { VmInputError } from "../errors";

/** A size as every cloud names it: its name, vCPUs and memory. */
export interface CloudSize {
  name: string;
  cpus: number;
  memory_mb: number;
}

/** The smallest size that fits (fewest MiB, then vCPUs, then name), or undefined. */
export function smallestFitting(sizes: readonly CloudSize[], cpus: number, memoryMb: number): CloudSize | undefined {
  return sizes.filter((s) => s.cpus >= cpus && s.memory_mb >= memoryMb).sort((a, b) => a.memory_mb - b.memory_mb || a.cpus - b.cpus || a.name.localeCompare(b.name))[0];
}

/** The sizes nearest a name: same family first, then by edit distance (for an unknown or retired size). */
export function nearestSizes(sizes: readonly CloudSize[], name: string, n = 5): string[] {
  const family = name.split(".")[0]!.replace(/\d+$/, "");
  const dist = (a: string, b: string) => {
    const d = Array.from({ length: b.length + 1 }, (_, i) => i);
    for (let i = 1; i <= a.length; i++) {
      let prev = d[0]!;
      d[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const tmp = d[j]!;
        d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
        prev = tmp;
      }
    }
    return d[b.length]!;
  };
  return [...sizes]
    .map((s) => ({ s: s.name, k: (s.name.startsWith(family) ? 0 : 100) + dist(s.name, name) }))
    .sort((a, b) => a.k - b.k || a.s.localeCompare(b.s))
    .slice(0, n)
    .map((x) => x.s);
}

/** The size of a spec: `size` by name (an unknown one names the nearest), else the smallest fitting. */
export function pickSize(sizes: readonly CloudSize[], want: { size?: string; cpus: number; memoryMb: number }, where: string): CloudSize {
  if (want.size) {
    const s = sizes.find((x) => x.name === want.size);
    if (!s) throw new VmInputError(`size '${want.size}' is not offered in ${where}; nearest: ${nearestSizes(sizes, want.size).join(", ")}`);
    return s;
  }
  const s = smallestFitting(sizes, want.cpus, want.memoryMb);
  if (!s) throw new VmInputError(`no size in ${where} has ${want.cpus} vCPUs and ${want.memoryMb} MiB`);
  return s;
}

/** The instance types of the region for an architecture (DescribeInstanceTypes, every page). */
export async function awsInstanceTypes(ec2: EC2Client, architecture = "x86_64"): Promise<CloudSize[]> {
  const out: CloudSize[] = [];
  let NextToken: string | undefined;
  do {
    const r = await ec2.send(
      new DescribeInstanceTypesCommand({ Filters: [{ Name: "processor-info.supported-architecture", Values: [architecture] }], NextToken, MaxResults: 100 }),
    );
    for (const t of r.InstanceTypes ?? []) {
      if (t.InstanceType && t.VCpuInfo?.DefaultVCpus && t.MemoryInfo?.SizeInMiB)
        out.push({ name: t.InstanceType, cpus: t.VCpuInfo.DefaultVCpus, memory_mb: t.MemoryInfo.SizeInMiB });
    }
    NextToken = r.NextToken;
  } while (NextToken);
  return out;
}
