import type { HostExecutor, RunResult } from "@svc/host";
import { ImageNotFoundError, VmExistsError, VmInputError, VmNotFoundError } from "../errors";
import { assertVmName } from "../names";
import { assertVmSpec } from "../spec-check";
import type { CreateOptions, CreateResult, DeleteResult, ImageInfo, VmDriver, VmInfo, VmSpec } from "../types";
import { lastError } from "../libvirt/virsh";

type KcliVm = Record<string, unknown>;

/** VMs through kcli (when the host has it): the same verbs, mapped to kcli's argv. */
export class KcliDriver implements VmDriver {
  readonly name = "kcli" as const;

  constructor(
    private readonly ex: HostExecutor,
    private readonly bin = "kcli",
  ) {}

  async list(): Promise<VmInfo[]> {
    const out = await this.kcli(["list", "vm", "-o", "json"]);
    const vms = parseJson(out, "kcli list vm") as KcliVm[];
    return (Array.isArray(vms) ? vms : []).map((v) => this.toInfo(v));
  }

  async info(name: string): Promise<VmInfo> {
    assertVmName(name);
    const r = await this.ex.run([this.bin, "info", "vm", name, "-o", "json"], { timeoutMs: 120_000 });
    if (r.code !== 0 || r.stdout.trim() === "") {
      if (r.code !== 0 && !/not found|no vm/i.test(r.stderr + r.stdout)) throw new Error(`kcli info vm failed: ${lastError(r.stderr || r.stdout)}`);
      throw new VmNotFoundError(name);
    }
    return this.toInfo(parseJson(r.stdout, "kcli info vm") as KcliVm);
  }

  async create(spec: VmSpec, opts: CreateOptions = {}): Promise<CreateResult> {
    assertVmSpec(spec);
    if (spec.forwards?.length) throw new VmInputError("forwards: the kcli driver has no user-mode port forwards; use the libvirt driver (SVC_VM_DRIVER=libvirt)");
    if (spec.userNetOutbound) throw new VmInputError("outbound: the kcli driver has no svc user-mode NIC; use the libvirt driver (SVC_VM_DRIVER=libvirt)");
    const existing = await this.info(spec.name).catch((e) => (e instanceof VmNotFoundError ? null : Promise.reject(e)));
    if (existing) {
      const diff = [
        existing.image !== null && existing.image !== (spec.image ?? null) ? `image: has ${existing.image}, asked ${spec.image ?? null}` : "",
        existing.iso !== null && existing.iso !== (spec.iso ?? null) ? `iso: has ${existing.iso}, asked ${spec.iso ?? null}` : "",
        existing.macs.length && spec.macs && existing.macs.join() !== spec.macs.join() ? `macs: has ${existing.macs.join(",")}, asked ${spec.macs.join(",")}` : "",
        existing.memory_mb !== null && existing.memory_mb !== spec.memoryMb ? `memory_mb: has ${existing.memory_mb}, asked ${spec.memoryMb}` : "",
        existing.cpus !== null && existing.cpus !== spec.cpus ? `cpus: has ${existing.cpus}, asked ${spec.cpus}` : "",
      ].filter(Boolean);
      if (diff.length) throw new VmExistsError(spec.name, diff.join("; "));
      return { info: existing, created: false };
    }
    // kcli pins a MAC through a net given as a dict, which it reads as a Python literal:
    // nets=[{"name":"default","mac":"52:54:00:.."}].
    const nets = spec.macs ? spec.nets.map((n, i) => JSON.stringify({ name: n, mac: spec.macs![i] })) : spec.nets;
    const argv = [
      "create",
      "vm",
      spec.name,
      ...(spec.image ? ["-i", spec.image] : []),
      ...(spec.iso ? ["-P", `iso=${spec.iso}`] : []),
      "-P",
      `memory=${spec.memoryMb}`,
      "-P",
      `numcpus=${spec.cpus}`,
      ...(spec.disksGb.length ? ["-P", `disks=[${spec.disksGb.join(",")}]`] : []),
      "-P",
      `nets=[${nets.join(",")}]`,
      ...(opts.wait ? ["--wait"] : []),
    ];
    try {
      await this.kcli(argv, opts.signal, opts.onProgress);
    } catch (e) {
      if (spec.image && /image .*not found|not found.*image/i.test((e as Error).message)) {
        const images = await this.listImages().catch(() => []);
        throw new ImageNotFoundError(
          spec.image,
          images.map((i) => i.name),
          "kcli's pools",
        );
      }
      throw e;
    }
    return { info: await this.info(spec.name), created: true };
  }

  /** kcli keeps no svc metadata: ownership is not checked here (see docs/host-layer.md). */
  async delete(name: string): Promise<DeleteResult> {
    assertVmName(name);
    const exists = await this.info(name).then(
      () => true,
      (e) => (e instanceof VmNotFoundError ? false : Promise.reject(e)),
    );
    if (!exists) return { name, deleted: false, note: `VM '${name}' does not exist; nothing to delete` };
    await this.kcli(["delete", "vm", name, "-y"]);
    return { name, deleted: true };
  }

  async listImages(): Promise<ImageInfo[]> {
    const out = await this.kcli(["list", "image"]);
    // kcli prints a table: "| Images |" header, then "| /path/to/image.qcow2 |" rows.
    return out
      .split("\n")
      .map((l) => /^\|\s*(\S+)\s*\|/.exec(l.trim())?.[1])
      .filter((v): v is string => !!v && !/^images$/i.test(v))
      .map((p) => ({ name: p.split("/").pop()!, path: p, boot: "disk" as const, description: null, os: null }));
  }

  private async kcli(args: string[], signal?: AbortSignal, onLine?: (l: string) => void): Promise<string> {
    const r: RunResult = await this.ex.run([this.bin, ...args], { timeoutMs: 1_800_000, signal, onStdout: onLine, onStderr: onLine });
    if (r.code !== 0) throw new Error(`kcli ${args.slice(0, 2).join(" ")} failed: ${lastError(r.stderr || r.stdout)}`);
    return r.stdout;
  }

  private toInfo(v: KcliVm): VmInfo {
    const str = (k: string) => (typeof v[k] === "string" && v[k] !== "" ? v[k] : null);
    const num = (k: string) => (v[k] === undefined || v[k] === null || v[k] === "" ? null : Number(v[k]));
    const status = (str("status") ?? "unknown").toLowerCase();
    const ip = str("ip");
    const disks = Array.isArray(v.disks)
      ? (v.disks as Record<string, unknown>[]).map((d) => ({ path: typeof d.path === "string" ? d.path : "", size_gb: d.size === undefined ? null : Number(d.size) }))
      : [];
    const rawNets = Array.isArray(v.nets) ? (v.nets as Record<string, unknown>[]) : [];
    const nets = rawNets.map((n) => (typeof n.net === "string" ? n.net : typeof n.name === "string" ? n.name : ""));
    const macs = rawNets.map((n) => (typeof n.mac === "string" ? n.mac.toLowerCase() : "")).filter(Boolean);
    return {
      name: typeof v.name === "string" ? v.name : "",
      state: status === "up" ? "running" : status === "down" ? "shut off" : status,
      image: str("image"),
      memory_mb: num("memory"),
      cpus: num("cpus") ?? num("numcpus"),
      disks,
      nets,
      macs,
      iso: str("iso"),
      ip,
      ssh_host: ip,
      ssh_port: ip ? 22 : null,
      ssh_user: str("user"),
      forwards: [],
      driver: this.name,
    };
  }
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${what} printed no JSON (is kcli recent enough for -o json?)`);
  }
}
