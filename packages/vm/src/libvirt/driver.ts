import { mkdir, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import type { HostExecutor } from "@svc/host";
import { VmExistsError, VmForeignError, VmInputError, VmNotFoundError, VmPermissionError } from "../errors";
import { listImages, resolveImage, toImageInfo, type ResolvedImage } from "../images";
import { assertVmName } from "../names";
import { fileAccessAdvice } from "../permission-advice";
import type { VmSettings } from "../settings";
import { assertVmSpec } from "../spec-check";
import { waitForSsh } from "../ssh-probe";
import type { CreateOptions, CreateResult, DeleteOptions, DeleteResult, ImageInfo, VmDriver, VmInfo, VmOwner, VmSpec } from "../types";
import { makeDisks, type VmDisk } from "./disks";
import { assertForwards } from "../forwards";
import { buildDomainXml, parseDomainXml, type ParsedDomain, type RecordedForward, type SvcVmMeta } from "./domain-xml";
import { pickForwardPort } from "./ports";
import { writeSeedIso } from "./seed-iso";
import { recordedSpec, specDiff } from "./spec-diff";
import { detectVirtType } from "./virt-type";
import { Virsh } from "./virsh";

const DEFAULT_WAIT_MS = 300_000;

/** Dependencies of the libvirt driver. */
export interface LibvirtDriverDeps {
  /** Runs virsh, qemu-img and genisoimage on this host (a LocalExecutor). */
  ex: HostExecutor;
  settings: VmSettings;
}

/** VMs as libvirt domains: qcow2 overlays on a base image (direct kernel boot or cloud-init), or an ISO on empty disks. */
export class LibvirtDriver implements VmDriver {
  readonly name = "libvirt" as const;
  private readonly virsh: Virsh;

  constructor(private readonly deps: LibvirtDriverDeps) {
    this.virsh = new Virsh(deps.ex, deps.settings.libvirtUri, [deps.settings.imagesDir, deps.settings.disksDir]);
  }

  async listImages(): Promise<ImageInfo[]> {
    return listImages(this.deps.settings.imagesDir).map(toImageInfo);
  }

  async list(): Promise<VmInfo[]> {
    const names = (await this.virsh.run(["list", "--all", "--name"]))
      .split("\n")
      .map((s) => s.trim())
      .filter(Boolean);
    const out: VmInfo[] = [];
    for (const n of names.sort()) {
      try {
        out.push(await this.info(n));
      } catch (e) {
        if (!(e instanceof VmNotFoundError)) throw e; // deleted meanwhile
      }
    }
    return out;
  }

  async info(name: string): Promise<VmInfo> {
    const d = await this.domain(name);
    if (!d) throw new VmNotFoundError(name);
    return this.toInfo(name, d);
  }

  async create(spec: VmSpec, opts: CreateOptions = {}): Promise<CreateResult> {
    assertVmSpec(spec);
    const image = spec.image ? resolveImage(this.deps.settings.imagesDir, spec.image) : null;
    const existing = await this.domain(spec.name);
    if (existing) return this.alreadyThere(spec, existing, opts);
    // Keys go into images only; an ISO decides itself who may log in.
    if (image && spec.sshKeys.length === 0) {
      const tried = this.deps.settings.sshPubkeyPaths.join(", ");
      throw new VmInputError(
        `no SSH public key to inject: none of ${tried || "the default key files"} exists; pass --ssh-key FILE, set SVC_VM_SSH_PUBKEY, or create one with ssh-keygen -t ed25519`,
      );
    }
    if (spec.iso && !existsSync(spec.iso)) throw new VmInputError(`iso ${spec.iso}: no such file on this host`);
    const userNets = spec.nets.filter((n) => n === "user");
    if (userNets.length > 1) throw new VmInputError("nets: 'user' may appear once");
    const vmDir = this.vmDir(spec.name);
    const progress = opts.onProgress ?? (() => undefined);
    await this.prepareDir(vmDir);
    try {
      const disks = await makeDisks(this.deps.ex, spec.disksGb, image, vmDir);
      let seedIso: string | null = null;
      if (image?.keyInjection === "cloud-init") {
        seedIso = join(vmDir, "seed.iso");
        await writeSeedIso(this.deps.ex, seedIso, spec.name, image.sshUser, spec.sshKeys);
      }
      const virtType = this.deps.settings.virtType === "auto" ? detectVirtType() : this.deps.settings.virtType;
      progress(
        `defining ${spec.name} (${virtType}, ${spec.memoryMb} MiB, ${spec.cpus} cpu, ${[image ? `image ${image.name}` : "", spec.iso ? `ISO ${spec.iso}` : ""].filter(Boolean).join(", ")})`,
      );
      await this.defineAndStart(spec, image, vmDir, disks, seedIso, virtType, userNets.length > 0, opts.owner ?? null);
    } catch (e) {
      // The domain goes before its files: deleting the disks of a domain still defined would orphan it.
      await this.removeDomain(spec.name).catch((rollback: unknown) => {
        const why = rollback instanceof Error ? rollback.message : String(rollback);
        throw new Error(`${e instanceof Error ? e.message : String(e)}; rolling back, removing domain ${spec.name} failed too (${why}): its files in ${vmDir} were kept`, {
          cause: e,
        });
      });
      await rm(vmDir, { recursive: true, force: true });
      throw e;
    }
    const info = await this.info(spec.name);
    if (opts.wait) await this.waitSsh(info, opts, progress);
    return { info: opts.wait ? await this.info(spec.name) : info, created: true };
  }

  async delete(name: string, opts: DeleteOptions = {}): Promise<DeleteResult> {
    assertVmName(name);
    const d = await this.domain(name);
    // A domain without svc metadata belongs to someone else: only deleted when forced.
    if (d && !d.meta && !opts.forceForeign) throw new VmForeignError(name, "delete");
    const vmDir = this.vmDir(name);
    if (!d) {
      if (existsSync(vmDir)) {
        await rm(vmDir, { recursive: true, force: true });
        return { name, deleted: false, note: `VM '${name}' does not exist; removed its leftover files in ${vmDir}` };
      }
      return { name, deleted: false, note: `VM '${name}' does not exist; nothing to delete` };
    }
    await this.removeDomain(name);
    if (d.meta) {
      await rm(vmDir, { recursive: true, force: true });
      return { name, deleted: true };
    }
    const paths = d.disks.filter((x) => x.device === "disk").map((x) => x.path);
    return { name, deleted: true, note: `'${name}' was not created by svc-vm; its storage was left in place: ${paths.join(", ") || "(none)"}` };
  }

  // ---- internals ----

  private vmDir(name: string): string {
    const base = resolve(this.deps.settings.disksDir);
    const dir = resolve(base, name);
    // The name is validated, but keep every delete inside the disks directory regardless.
    if (!dir.startsWith(base + sep)) throw new VmInputError(`refusing a VM directory outside ${base}`);
    return dir;
  }

  private async domain(name: string): Promise<ParsedDomain | null> {
    assertVmName(name);
    try {
      return parseDomainXml(await this.virsh.run(["dumpxml", name], { domain: name }));
    } catch (e) {
      if (e instanceof VmNotFoundError) return null;
      throw e;
    }
  }

  private async state(name: string): Promise<string> {
    return (await this.virsh.run(["domstate", name], { domain: name })).trim();
  }

  private async toInfo(name: string, d: ParsedDomain): Promise<VmInfo> {
    const state = await this.state(name);
    let ip: string | null = null;
    if (state === "running" && d.networks.length > 0) ip = await this.guestIp(name);
    const m = d.meta;
    const userPort = m?.ssh_port ?? null;
    const rootDisks = d.disks.filter((x) => x.device === "disk");
    return {
      name,
      state,
      image: m?.image ?? null,
      memory_mb: d.memoryMb,
      cpus: d.cpus,
      disks: rootDisks.map((x, i) => ({ path: x.path, size_gb: m?.disks_gb[i] ?? null })),
      nets: m?.nets ?? d.networks,
      macs: m?.macs?.length ? m.macs : d.macs,
      iso: m?.iso ?? null,
      ip,
      ssh_host: userPort ? "127.0.0.1" : ip,
      ssh_port: userPort ?? (ip ? 22 : null),
      ssh_user: m?.ssh_user ?? null,
      forwards: userPort
        ? [{ proto: "tcp" as const, guest_port: 22, host_port: userPort }, ...(m?.forwards ?? [])].map((f) => ({
            proto: f.proto,
            guest_port: f.guest_port,
            host_address: "127.0.0.1",
            host_port: f.host_port,
          }))
        : [],
      driver: this.name,
    };
  }

  /** The guest's address from the DHCP lease, else from the host's ARP table (static addresses). */
  private async guestIp(name: string): Promise<string | null> {
    for (const source of ["lease", "arp"]) {
      const r = await this.virsh.tryRun(["domifaddr", name, "--source", source]);
      const m = /ipv4\s+(\d+\.\d+\.\d+\.\d+)\//.exec(r.stdout);
      if (m) return m[1]!;
    }
    return null;
  }

  private async alreadyThere(spec: VmSpec, d: ParsedDomain, opts: CreateOptions): Promise<CreateResult> {
    if (!d.meta) throw new VmForeignError(spec.name, "create");
    // Adopted only by the run that made it (a retry of its task), never by another run.
    const otherRun = !!opts.owner && !!d.owner && (d.owner.dagId !== opts.owner.dagId || d.owner.runId !== opts.owner.runId);
    const adopted = otherRun && !!opts.adoptSameDag && d.owner!.dagId === opts.owner!.dagId;
    if (otherRun && !adopted) {
      throw new VmExistsError(spec.name, `created by run ${d.owner!.runId} of DAG ${d.owner!.dagId}, task ${d.owner!.taskId}`, "owner");
    }
    const detail = specDiff(spec, d.meta);
    if (detail) throw new VmExistsError(spec.name, detail);
    // Same spec: idempotent success (at-least-once task delivery repeats creates). Start it if stopped.
    if ((await this.state(spec.name)) !== "running") await this.virsh.run(["start", spec.name], { domain: spec.name });
    const info = await this.info(spec.name);
    if (opts.wait) await this.waitSsh(info, opts, opts.onProgress ?? (() => undefined));
    return { info, created: false, ...(adopted ? { adopted } : {}) };
  }

  private async prepareDir(vmDir: string): Promise<void> {
    try {
      await mkdir(this.deps.settings.disksDir, { recursive: true, mode: 0o755 });
      // Leftovers of a create that died half-way: no domain owns them (checked by the caller).
      await rm(vmDir, { recursive: true, force: true });
      // qemu runs as its own user and must reach the disks: world-traversable, not writable.
      await mkdir(vmDir, { mode: 0o755 });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "EACCES" || code === "EPERM" || code === "EROFS") throw new VmPermissionError(fileAccessAdvice(vmDir, code));
      throw e;
    }
  }

  private async defineAndStart(
    spec: VmSpec,
    image: ResolvedImage | null,
    vmDir: string,
    disks: VmDisk[],
    seedIso: string | null,
    virtType: "kvm" | "qemu",
    userNet: boolean,
    owner: VmOwner | null,
  ): Promise<void> {
    const keyArg = image?.keyInjection === "cmdline" ? ` svc_ssh_key=${Buffer.from(spec.sshKeys.join("\n") + "\n").toString("base64")} svc_hostname=${spec.name}` : "";
    // A free port can be taken between picking and qemu binding it: retry with another.
    for (let attempt = 0; ; attempt++) {
      const taken = userNet ? await this.takenPorts() : new Set<number>();
      const port = userNet ? await pickForwardPort(taken) : null;
      const forwards = userNet ? await this.pickForwards(spec, taken.add(port!)) : [];
      const meta: SvcVmMeta = {
        image: image?.name ?? null,
        ...recordedSpec(spec),
        ssh_port: port,
        ...(forwards.length ? { forwards } : {}),
        ...(spec.userNetOutbound ? { user_net_outbound: true } : {}),
        ssh_user: image?.sshUser ?? null,
        vm_dir: vmDir,
      };
      const macOf = (i: number) => spec.macs?.[i] ?? null;
      const xml = buildDomainXml({
        name: spec.name,
        virtType,
        memoryMb: spec.memoryMb,
        cpus: spec.cpus,
        disks,
        seedIso,
        iso: spec.iso ?? null,
        kernel: image?.kernel && image.initrd ? { kernel: image.kernel, initrd: image.initrd, cmdline: image.cmdline + keyArg } : null,
        networks: spec.nets.flatMap((n, i) => (n === "user" ? [] : [{ name: n, mac: macOf(i) }])),
        userNetPort: port,
        userNetMac: macOf(spec.nets.indexOf("user")),
        consoleLog: join(vmDir, "console.log"),
        meta,
        owner,
      });
      const xmlPath = join(vmDir, "domain.xml");
      await writeFile(xmlPath, xml, { mode: 0o600 });
      const def = await this.virsh.tryRun(["define", xmlPath]);
      if (def.code !== 0) {
        if (/already exists/i.test(def.stderr)) throw new VmExistsError(spec.name, "created concurrently by another request");
        throw this.virsh.toError(def, "define");
      }
      const start = await this.virsh.tryRun(["start", spec.name]);
      if (start.code === 0) return;
      const undef = await this.virsh.tryRun(["undefine", spec.name]);
      if (undef.code !== 0)
        throw new Error(
          `${this.virsh.toError(start, "start").message}; undefining ${spec.name} after that failed too: ${this.virsh.toError(undef, "undefine", spec.name).message}`,
        );
      if (port && attempt < 2 && /hostfwd|host forwarding|address already in use/i.test(start.stderr)) continue;
      const err = this.virsh.toError(start, "start");
      if (/network '.*' is not active|network not found/i.test(start.stderr)) throw new VmInputError(`${err.message}; use nets=[user] or start the network (virsh net-start NAME)`);
      throw err;
    }
  }

  private async takenPorts(): Promise<Set<number>> {
    const taken = new Set<number>();
    const names = (await this.virsh.run(["list", "--all", "--name"]))
      .split("\n")
      .map((s) => s.trim())
      .filter(Boolean);
    for (const n of names) {
      const d = await this.domain(n).catch(() => null);
      if (d?.meta?.ssh_port) taken.add(d.meta.ssh_port);
      for (const f of d?.meta?.forwards ?? []) taken.add(f.host_port);
    }
    return taken;
  }

  /** A 127.0.0.1 port per forwarded guest port (tcp and udp of one guest port share a number). */
  private async pickForwards(spec: VmSpec, taken: Set<number>): Promise<RecordedForward[]> {
    const wanted = assertForwards(spec.forwards ?? [], spec.nets);
    const out: RecordedForward[] = [];
    for (const guest of [...new Set(wanted.map((f) => f.guestPort))]) {
      const protos = wanted.filter((f) => f.guestPort === guest).map((f) => f.proto);
      const hostPort = await pickForwardPort(taken, protos);
      taken.add(hostPort);
      for (const proto of protos) out.push({ proto, guest_port: guest, host_port: hostPort });
    }
    return out;
  }

  private async removeDomain(name: string): Promise<void> {
    const st = await this.virsh.tryRun(["domstate", name]);
    if (st.code === 0 && st.stdout.trim() !== "shut off") {
      const r = await this.virsh.tryRun(["destroy", name]);
      if (r.code !== 0 && !/not running/i.test(r.stderr)) throw this.virsh.toError(r, "destroy", name);
    }
    const u = await this.virsh.tryRun(["undefine", name]);
    if (u.code !== 0 && !/not found|failed to get domain/i.test(u.stderr)) throw this.virsh.toError(u, "undefine", name);
  }

  private async waitSsh(info: VmInfo, opts: CreateOptions, progress: (l: string) => void): Promise<void> {
    if (!info.ssh_host || !info.ssh_port) {
      // libvirt networks: the lease appears after DHCP; poll info until it does.
      const deadline = Date.now() + (opts.waitTimeoutMs ?? DEFAULT_WAIT_MS);
      while (Date.now() < deadline && (!info.ssh_host || !info.ssh_port)) {
        opts.signal?.throwIfAborted();
        await new Promise((r) => setTimeout(r, 1000));
        info = await this.info(info.name);
      }
      if (!info.ssh_host || !info.ssh_port) throw new Error(`VM '${info.name}' got no IP address within ${opts.waitTimeoutMs ?? DEFAULT_WAIT_MS} ms`);
    }
    progress(`waiting for SSH on ${info.ssh_host}:${info.ssh_port}`);
    const ok = await waitForSsh(info.ssh_host, info.ssh_port, opts.waitTimeoutMs ?? DEFAULT_WAIT_MS, opts.signal);
    if (!ok)
      throw new Error(
        `VM '${info.name}' did not answer SSH on ${info.ssh_host}:${info.ssh_port} within ${opts.waitTimeoutMs ?? DEFAULT_WAIT_MS} ms; see ${join(this.vmDir(info.name), "console.log")}`,
      );
  }
}
