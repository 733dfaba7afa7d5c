import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { isSvcError } from "@svc/errors";
import { parseLabels, parseSshTarget } from "../names";
import { WEIGHERS, type Weigher } from "../place";
import type { HostServiceDeps } from "../service";
import { addProvider, cloudHostInput } from "./add-cloud";
import { CliContext, UsageError, type CliIo } from "./context";
import { hostInfo, hostsTable, placementText } from "./format";
import { HELP } from "./help";

/** Exit codes, as svc-vm's where they mean the same. */
export const EXIT = { ok: 0, error: 1, usage: 2, notFound: 3, conflict: 4, unreachable: 5 } as const;

type Opt = { type: "string" | "boolean"; multiple?: boolean; short?: string };
const COMMON: Record<string, Opt> = { output: { type: "string", short: "o" }, help: { type: "boolean", short: "h" } };
const VERB_OPTS: Record<string, Record<string, Opt>> = {
  list: { cached: { type: "boolean" } },
  info: { cached: { type: "boolean" } },
  add: {
    ssh: { type: "string" },
    key: { type: "string" },
    "libvirt-uri": { type: "string" },
    label: { type: "string", multiple: true },
    "host-key": { type: "string" },
    "images-dir": { type: "string" },
    "disks-dir": { type: "string" },
    "reserve-memory": { type: "string" },
    "reserve-disk": { type: "string" },
    "reserve-vcpus": { type: "string" },
    "cpu-ratio": { type: "string" },
    "no-probe": { type: "boolean" },
    provider: { type: "string" },
    region: { type: "string" },
    zone: { type: "string" },
    subnet: { type: "string" },
    "security-group": { type: "string" },
    endpoint: { type: "string" },
    credentials: { type: "string" },
    location: { type: "string" },
    network: { type: "string" },
    project: { type: "string" },
    subscription: { type: "string" },
    "resource-group": { type: "string" },
    vnet: { type: "string" },
    "authority-host": { type: "string" },
    bastion: { type: "string" },
    "bastion-key": { type: "string" },
    "ssh-user": { type: "string" },
    "ssh-from": { type: "string" },
  },
  drain: {},
  activate: {},
  pin: { "host-key": { type: "string" } },
  remove: { force: { type: "boolean" } },
  place: {
    memory: { type: "string" },
    cpus: { type: "string" },
    disk: { type: "string", multiple: true },
    image: { type: "string" },
    host: { type: "string" },
    weigher: { type: "string" },
  },
};
const NAMED = new Set(["info", "add", "drain", "activate", "pin", "remove"]);

function num(v: string | undefined, what: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+(\.\d+)?$/.test(v)) throw new UsageError(`${what}: expected a number, got '${v}'`);
  return Number(v);
}

type Values = Record<string, string | boolean | string[] | undefined>;
const str = (v: Values, k: string) => v[k] as string | undefined;

async function runVerb(verb: string, name: string | undefined, v: Values, json: boolean, ctx: CliContext): Promise<number> {
  const show = (data: unknown, text: string) => ctx.io.out(json ? JSON.stringify(data, null, 2) : text);
  const svc = await ctx.service();
  switch (verb) {
    case "list": {
      const hosts = await svc.list({ probe: !v.cached });
      return (show(hosts, hostsTable(hosts)), EXIT.ok);
    }
    case "info": {
      const h = await svc.info(name!, { probe: !v.cached });
      return (show(h, hostInfo(h)), EXIT.ok);
    }
    case "add": {
      const provider = addProvider(v);
      if (provider !== "libvirt") {
        const labels = parseLabels((v.label as string[] | undefined) ?? []);
        if (typeof labels === "string") throw new UsageError(labels);
        const h = await svc.addCloud(cloudHostInput(name!, provider, v, labels, ctx.config.vm.sshPrivkey), { probe: !v["no-probe"], actor: ctx.actor });
        const where = h.provider_settings.region ?? h.provider_settings.zone ?? h.provider_settings.location;
        return (show(h, `host '${h.name}' added: ${h.provider} ${where}${h.up === false ? `, but it is down: ${h.probe_error}` : ""}`), EXIT.ok);
      }
      const ssh = str(v, "ssh");
      const key = str(v, "key");
      if (!ssh || !key) throw new UsageError("add needs --ssh USER@ADDR[:PORT] and --key PATH (see svc-hosts add --help)");
      const target = parseSshTarget(ssh);
      if (!target) throw new UsageError(`--ssh '${ssh}': expected USER@ADDR[:PORT]`);
      const labels = parseLabels((v.label as string[] | undefined) ?? []);
      if (typeof labels === "string") throw new UsageError(labels);
      const h = await svc.add(
        {
          name: name!,
          ...target,
          key_path: resolve(key),
          labels,
          host_key: str(v, "host-key"),
          libvirt_uri: str(v, "libvirt-uri"),
          images_dir: str(v, "images-dir"),
          disks_dir: str(v, "disks-dir"),
          reserve_memory_mb: num(str(v, "reserve-memory"), "--reserve-memory"),
          reserve_disk_gb: num(str(v, "reserve-disk"), "--reserve-disk"),
          reserve_vcpus: num(str(v, "reserve-vcpus"), "--reserve-vcpus"),
          cpu_ratio: num(str(v, "cpu-ratio"), "--cpu-ratio"),
        },
        { probe: !v["no-probe"], actor: ctx.actor },
      );
      return (
        show(h, `host '${h.name}' added${h.host_key ? `, host key pinned: ${h.host_key.split("\n")[0]}` : " without a pinned host key (svc-hosts pin " + h.name + ")"}`),
        EXIT.ok
      );
    }
    case "drain":
    case "activate": {
      const h = verb === "drain" ? await svc.drain(name!, ctx.actor) : await svc.activate(name!, ctx.actor);
      return (show(h, `host '${h.name}' is ${h.state}`), EXIT.ok);
    }
    case "pin": {
      const h = await svc.pin(name!, { hostKey: str(v, "host-key"), actor: ctx.actor });
      return (show(h, `host '${h.name}': host key pinned: ${h.host_key ?? ""}`), EXIT.ok);
    }
    case "remove": {
      const r = await svc.remove(name!, { force: Boolean(v.force), actor: ctx.actor });
      return (show(r, `host '${r.removed}' removed`), EXIT.ok);
    }
    case "place": {
      const memoryMb = num(str(v, "memory"), "--memory");
      const cpus = num(str(v, "cpus"), "--cpus");
      const disks = ((v.disk as string[] | undefined) ?? []).map((d) => num(d, "--disk")!);
      if (memoryMb === undefined || cpus === undefined || disks.length === 0) throw new UsageError("place needs --memory MB, --cpus N and --disk GB");
      const weigher = (str(v, "weigher") ?? "spread") as Weigher;
      if (!WEIGHERS.includes(weigher)) throw new UsageError(`--weigher must be one of ${WEIGHERS.join(", ")}`);
      const p = await svc.placement({ memoryMb, cpus, disksGb: disks, ...(v.image ? { image: str(v, "image") } : {}), ...(v.host ? { host: str(v, "host") } : {}) }, weigher);
      return (show(p, placementText(p)), p.host ? EXIT.ok : EXIT.error);
    }
  }
  throw new UsageError(`unknown command '${verb}'`);
}

function exitOf(e: unknown): number {
  if (e instanceof UsageError) return EXIT.usage;
  if (!isSvcError(e)) return EXIT.error;
  const byCode: Record<string, number> = {
    bad_request: EXIT.usage,
    not_found: EXIT.notFound,
    conflict: EXIT.conflict,
    already_exists: EXIT.conflict,
    host_unreachable: EXIT.unreachable,
  };
  return byCode[e.code] ?? EXIT.error;
}

/** Run svc-hosts on argv (without node and script); returns the exit code. Errors are one line on stderr. */
export async function runCli(argv: string[], io: CliIo, deps: Omit<HostServiceDeps, "db"> = {}): Promise<number> {
  const ctx = new CliContext(io, deps);
  try {
    const [first, ...rest] = argv;
    const verb = first === "undrain" ? "activate" : first;
    if (!verb || verb === "-h" || verb === "--help" || verb === "help") return (io.out(HELP.main!), verb ? EXIT.ok : EXIT.usage);
    const opts = VERB_OPTS[verb];
    if (!opts) throw new UsageError(`unknown command '${verb}' (see svc-hosts --help)`);
    let parsed;
    try {
      parsed = parseArgs({ args: rest, options: { ...COMMON, ...opts }, allowPositionals: true, strict: true });
    } catch (e) {
      throw new UsageError(`${(e as Error).message.split("\n")[0]} (see svc-hosts ${verb} --help)`);
    }
    const { values, positionals } = parsed;
    if (values.help) return (io.out(HELP[verb]!), EXIT.ok);
    if (verb === "add") addProvider(values as Values);
    const want = NAMED.has(verb) ? 1 : 0;
    if (positionals.length !== want) throw new UsageError(want ? `${verb} needs one host NAME (see svc-hosts ${verb} --help)` : `unexpected argument '${positionals[0]}'`);
    const output = (values.output as string | undefined) ?? "table";
    if (output !== "table" && output !== "json") throw new UsageError("-o/--output must be table or json");
    return await runVerb(verb, positionals[0], values as Values, output === "json", ctx);
  } catch (e) {
    io.err(`error: ${e instanceof Error ? e.message : String(e)}`);
    return exitOf(e);
  } finally {
    await ctx.close();
  }
}
