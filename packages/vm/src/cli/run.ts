import { existsSync, readFileSync } from "node:fs";
import { LocalExecutor } from "@svc/host";
import { VmInputError } from "../errors";
import { assertVmName } from "../names";
import { parseVmParams } from "../params";
import { createVmDriver } from "../select-driver";
import { vmSettingsFromEnv, type VmSettings } from "../settings";
import type { VmDriver, VmOwner } from "../types";
import { classify, EXIT } from "./exit-codes";
import { imageTable, vmDetails, vmTable } from "./format";
import { HELP } from "./help";
import type { CliIo } from "./io";
import { opt, parseArgs, type ParsedArgs } from "./parse-args";
import { runDownloadVerb } from "./download-verb";
import { pinAfterCreate } from "./pin-after-create";
import { runSshVerb } from "./ssh-verb";

export type { CliIo };

/** What a caller may give svc-vm instead of what it makes itself. */
export interface CliDeps {
  /** The driver to act through (a cloud host's, from cloudDriverFor); default: this host's libvirt or kcli. */
  driver?: VmDriver;
}

/** Run svc-vm with `argv` (no program name); resolves to the exit code. */
export async function runCli(argv: readonly string[], io: CliIo, deps: CliDeps = {}): Promise<number> {
  let json = argv.some((a, i) => (a === "-o" || a === "--output") && argv[i + 1] === "json") || argv.includes("--output=json");
  try {
    const p = parseArgs(argv);
    const output = opt(p, "output") ?? "table";
    if (output !== "table" && output !== "json") throw new VmInputError(`-o must be table or json, got ${JSON.stringify(output).slice(0, 30)}`);
    json = output === "json";
    const [verb, noun, ...args] = p.positionals;
    if (p.flags.has("help") || !verb) {
      io.out(HELP[verb ?? "main"] ?? HELP.main!);
      return verb || p.flags.has("help") ? EXIT.ok : EXIT.usage;
    }
    const settings = settingsFrom(p, io.env);
    const driver = deps.driver ?? createVmDriver(settings, new LocalExecutor({ env: io.env, inheritAll: true }), io.env.PATH ?? "");
    const print = (data: unknown, text: string) => io.out(json ? JSON.stringify(data, null, 2) : text);
    const key = `${verb} ${noun ?? ""}`.trim();
    switch (key) {
      case "list vm":
      case "list vms":
        return await done(args, async () => {
          if (p.flags.has("orphans"))
            throw new VmInputError("--orphans compares the cloud hosts of the inventory with svc's records: svc-vm list vm --orphans (with DATABASE_URL)");
          const vms = await driver.list(p.flags.has("all") ? { all: true } : {});
          print(vms, vmTable(vms));
        });
      case "list image":
      case "list images":
        return await done(args, async () => {
          const images = await driver.listImages();
          print(images, imageTable(images, `no images in ${settings.imagesDir}`));
        });
      case "info vm":
        return await done(
          args,
          async () => {
            const v = await driver.info(one(args, "info vm <name>"));
            print(v, vmDetails(v));
          },
          1,
        );
      case "create vm":
        return await create(driver, p, args, settings, io, print);
      case "delete vm":
        return await remove(driver, p, args, io, print);
      case "download image":
        await runDownloadVerb(p, args, driver, settings, io, print);
        return EXIT.ok;
      case "ssh vm":
        return await runSshVerb(p, one(args, "ssh vm <name> -- <command>"), driver, settings, io);
      default:
        throw new VmInputError(`unknown command '${key.slice(0, 40)}' (see svc-vm --help)`);
    }
  } catch (e) {
    const { exit, code } = classify(e);
    const message = (e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, " ");
    if (json) io.out(JSON.stringify({ error: { code, message }, exit_code: exit }));
    io.err(`svc-vm: error: ${message}`);
    return exit;
  }
}

async function done(args: string[], fn: () => Promise<void>, expected = 0): Promise<number> {
  if (args.length > expected) throw new VmInputError(`unexpected argument ${JSON.stringify(args[expected]).slice(0, 60)}`);
  await fn();
  return EXIT.ok;
}

function one(args: string[], usage: string): string {
  if (args.length !== 1) throw new VmInputError(`usage: svc-vm ${usage}`);
  return assertVmName(args[0]!);
}

function settingsFrom(p: ParsedArgs, env: Record<string, string | undefined>): VmSettings {
  const s = vmSettingsFromEnv(env);
  const driver = opt(p, "driver");
  const virt = opt(p, "virt-type");
  if (driver && !["auto", "libvirt", "kcli"].includes(driver)) throw new VmInputError("--driver must be auto, libvirt or kcli");
  if (virt && !["auto", "kvm", "qemu"].includes(virt)) throw new VmInputError("--virt-type must be auto, kvm or qemu");
  return {
    ...s,
    imagesDir: opt(p, "images-dir") ?? s.imagesDir,
    disksDir: opt(p, "disks-dir") ?? s.disksDir,
    libvirtUri: opt(p, "uri") ?? s.libvirtUri,
    driver: (driver as VmSettings["driver"]) ?? s.driver,
    virtType: (virt as VmSettings["virtType"]) ?? s.virtType,
    sshPubkeyPaths: p.options.get("ssh-key") ?? s.sshPubkeyPaths,
  };
}

async function create(driver: VmDriver, p: ParsedArgs, args: string[], settings: VmSettings, io: CliIo, print: (d: unknown, t: string) => void): Promise<number> {
  const name = one(args, "create vm <name> -i <image>");
  const image = opt(p, "image");
  const given = p.options.get("param") ?? [];
  const params = parseVmParams(given);
  // A cloud instance's network is its host's (subnet, location): libvirt's default user-mode NIC is not asked for.
  const cloud = driver.name !== "libvirt" && driver.name !== "kcli";
  if (cloud && !given.some((x) => x.startsWith("nets="))) params.nets = [];
  if (!image && !params.iso) throw new VmInputError("create vm needs an image: -i <image> (see svc-vm list image), or an ISO to boot: -P iso=/path/to.iso");
  const explicit = p.options.has("ssh-key") || Boolean(io.env.SVC_VM_SSH_PUBKEY);
  // Given keys are all injected (and must exist); by default the first existing one, as ssh picks it.
  const keyFiles = explicit ? settings.sshPubkeyPaths : settings.sshPubkeyPaths.filter((f) => existsSync(f)).slice(0, 1);
  const sshKeys = keyFiles.flatMap((f) => {
    if (!existsSync(f)) throw new VmInputError(`--ssh-key ${f}: no such file`);
    let text: string;
    try {
      text = readFileSync(f, "utf8");
    } catch (e) {
      throw new VmInputError(`--ssh-key ${f}: not a readable file (${(e as NodeJS.ErrnoException).code ?? "error"})`);
    }
    return text
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => /^(ssh|ecdsa)-/.test(l));
  });
  const waitS = opt(p, "wait-timeout");
  if (waitS !== undefined && !/^\d+$/.test(waitS)) throw new VmInputError("--wait-timeout takes whole seconds");
  const owner = ownerFrom(p);
  const r = await driver.create(
    { name, ...(image ? { image } : {}), ...params, sshKeys },
    {
      wait: p.flags.has("wait"),
      adoptSameDag: p.flags.has("adopt-same-dag"),
      waitTimeoutMs: waitS ? Number(waitS) * 1000 : undefined,
      onProgress: (l) => io.err(l),
      ...(owner ? { owner } : {}),
    },
  );
  // Keys are scanned until the --wait deadline: a TCG guest can answer SSH long before its key exchange completes.
  if (p.flags.has("wait")) await pinAfterCreate(r, settings, io, Date.now() + (waitS ? Number(waitS) : 300) * 1000);
  const v = r.info;
  const how = v.ssh_host && v.ssh_port ? `; ssh ${v.ssh_user ?? "root"}@${v.ssh_host} -p ${v.ssh_port}` : "";
  const had = r.adopted ? `VM ${name} was made by another run of this DAG; adopted with the same spec` : `VM ${name} already exists with the same spec`;
  print({ ...v, created: r.created, ...(r.adopted ? { adopted: true } : {}) }, r.created ? `created VM ${name} (${v.state})${how}` : `${had} (${v.state})${how}`);
  return EXIT.ok;
}

async function remove(driver: VmDriver, p: ParsedArgs, args: string[], io: CliIo, print: (d: unknown, t: string) => void): Promise<number> {
  const name = one(args, "delete vm <name> -y");
  if (!p.flags.has("yes")) {
    if (!io.isTTY) throw new VmInputError(`refusing to delete VM '${name}' without -y (no terminal to ask)`);
    const a = (await io.ask(`Delete VM '${name}' and its disks? [y/N] `)).trim().toLowerCase();
    if (a !== "y" && a !== "yes") {
      io.err("not deleted");
      return EXIT.error;
    }
  }
  const r = await driver.delete(name, { forceForeign: p.flags.has("force-foreign") });
  print(r, r.deleted ? `deleted VM ${name}${r.note ? ` (${r.note})` : ""}` : (r.note ?? `VM ${name} does not exist`));
  return EXIT.ok;
}

/** --owner-dag/--owner-run/--owner-task: all three or none; recorded in the domain's metadata. */
function ownerFrom(p: ParsedArgs): VmOwner | undefined {
  const [dagId, runId, taskId] = ["owner-dag", "owner-run", "owner-task"].map((k) => opt(p, k));
  if (dagId === undefined && runId === undefined && taskId === undefined) return undefined;
  if (dagId === undefined || runId === undefined || taskId === undefined) throw new VmInputError("give --owner-dag, --owner-run and --owner-task together");
  for (const v of [dagId, runId, taskId]) {
    // eslint-disable-next-line no-control-regex -- control characters are what this rejects
    if (v === "" || v.length > 250 || /[\x00-\x1f\x7f]/.test(v)) throw new VmInputError("--owner-* values: 1 to 250 characters, no control characters");
  }
  return { dagId, runId, taskId };
}
