import { imageTable, runCli as runVmCli, vmDetails, vmTable, VM_CLI_EXIT as EXIT, type CliIo, type ImageInfo, type VmInfo } from "@svc/vm";
import type { HostRecord } from "../types";
import { CliContext, UsageError } from "./context";
import { parseFanOutArgs, FanOutUsageError, type FanOutArgs } from "./vm-hosts-args";
import { regionOf } from "../cloud-orphans";
import { failureOf, runOnHost, type HostRun } from "./vm-hosts-exec";
import { listOrphans } from "./vm-hosts-orphans";

/** A VM or an image with the host it is on (svc-vm -C / --all-hosts output): svc-vm's columns after a HOST column. */
type OnHost<T> = { host: string } & T;
const hostOf = (r: { host: string }) => r.host;

/** An error of the fan-out with svc-vm's exit code and error code. */
class FanOutError extends Error {
  constructor(
    message: string,
    readonly exit: number,
    readonly code: string,
  ) {
    super(message);
  }
}

/** Timeouts of one host's svc-vm: reads are quick, a create waits for a boot, a download for the image. */
const TIMEOUT_MS: Record<string, number> = { list: 120_000, info: 120_000, delete: 600_000, create: 1_800_000, download: 3_600_000 };
/** Verbs --all-hosts knows; any verb goes to the one host -C names. */
const ALL_HOSTS = ["list vm", "list vms", "list image", "list images", "info vm", "delete vm"];

type Run = (h: HostRecord, args: readonly string[], relay?: boolean) => Promise<HostRun>;
type Listed = { host: HostRecord; r: HostRun };

function pickHost(all: HostRecord[], name: string): HostRecord {
  const h = all.find((x) => x.name === name);
  if (!h) throw new FanOutError(`unknown host '${name}'; the inventory has: ${all.map((x) => x.name).join(", ") || "(none)"} (svc-hosts list)`, EXIT.usage, "invalid_input");
  return h;
}

const jsonOf = (s: string): unknown => {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
};

/** Report hosts that failed on stderr, one line each; the exit code they add up to (5 when any did not answer). */
function report(io: CliIo, failed: Listed[]): number {
  for (const { host, r } of failed) io.err(`svc-vm: host '${host.name}': ${failureOf(r)}`);
  return exitOf(failed);
}
function exitOf(failed: Listed[]): number {
  if (failed.length === 0) return EXIT.ok;
  return failed.some((f) => f.r.unreachable || f.r.code === EXIT.unavailable) ? EXIT.unavailable : failed[0]!.r.code || EXIT.error;
}

/** A host whose list failed (--all-hosts' `unavailable`, as `--orphans` names them): where it is and why. */
interface Unavailable {
  host: string;
  provider: string;
  region: string | null;
  error: string;
}
const placeOf = (h: HostRecord) => ({ provider: h.provider, region: h.provider === "libvirt" ? null : regionOf(h) });

/**
 * list vm / list image on the targets. -C HOST: that host's rows (a JSON array, as svc-vm's own);
 * if it fails, its error. --all-hosts: `{vms|images: [...], unavailable: [{host, provider, region, error}]}`,
 * exit 0 while any host answered: one host down or refusing the keys is listed with why and the others stand.
 */
async function list(a: FanOutArgs, targets: HostRecord[], run: Run, io: CliIo): Promise<number> {
  const results = await Promise.all(targets.map(async (host) => ({ host, r: await run(host, [...a.rest, "-o", "json"]) })));
  const images = a.noun === "image" || a.noun === "images";
  const rows: OnHost<Record<string, unknown>>[] = [];
  const failed: Listed[] = [];
  for (const x of results) {
    const body = jsonOf(x.r.stdout);
    if (x.r.code === 0 && Array.isArray(body)) rows.push(...(body as Record<string, unknown>[]).map((v) => ({ host: x.host.name, ...(images ? {} : placeOf(x.host)), ...v })));
    else failed.push(x);
  }
  if (a.host !== undefined && failed.length) {
    const { host, r } = failed[0]!;
    const own = (jsonOf(r.stdout) as { error?: { code?: string } } | undefined)?.error?.code;
    throw new FanOutError(`host '${host.name}': ${failureOf(r)}`, exitOf(failed), r.unreachable ? "host_unavailable" : (own ?? "error"));
  }
  const unavailable: Unavailable[] = failed.map(({ host, r }) => ({ host: host.name, ...placeOf(host), error: failureOf(r) })).sort((x, y) => x.host.localeCompare(y.host));
  const where = (u: { provider: string; region: string | null }) => (u.region ? `${u.provider} ${u.region}` : u.provider);
  const at = (r: OnHost<VmInfo>) => (r.cloud ? `${r.host} (${r.cloud.provider} ${r.cloud.region})` : r.host);
  // -C failed above, so only --all-hosts has hosts to name here.
  if (a.json) {
    io.out(JSON.stringify(a.allHosts ? { [images ? "images" : "vms"]: rows, unavailable } : rows, null, 2));
    for (const u of unavailable) io.err(`svc-vm: host '${u.host}' (${where(u)}): not listed: ${u.error}`);
  } else {
    const table = images ? imageTable(rows as unknown as OnHost<ImageInfo>[], "no images", hostOf) : vmTable(rows as unknown as OnHost<VmInfo>[], at);
    io.out([table, ...unavailable.map((u) => `host ${u.host} (${where(u)}): not listed: ${u.error}`)].join("\n"));
  }
  // No host answering is no listing at all: 5 when any did not answer, else the first one's code.
  return failed.length === results.length ? exitOf(failed) : EXIT.ok;
}

/** The one host that has VM `name` (info vm on each target); every other outcome is an error naming the hosts. */
async function locate(name: string, targets: HostRecord[], run: Run, io: CliIo): Promise<{ host: HostRecord; info: OnHost<VmInfo> }> {
  const results = await Promise.all(targets.map(async (host) => ({ host, r: await run(host, ["info", "vm", name, "-o", "json"]) })));
  const found = results.filter((x) => x.r.code === 0);
  const failed = results.filter((x) => x.r.code !== 0 && x.r.code !== EXIT.notFound);
  report(io, failed);
  const names = (xs: Listed[]) => xs.map((x) => x.host.name).join(", ");
  if (found.length > 1) throw new FanOutError(`VM '${name}' is on several hosts: ${names(found)}; name one with -C HOST`, EXIT.exists, "vm_on_several_hosts");
  if (found.length === 1) return { host: found[0]!.host, info: { host: found[0]!.host.name, ...(jsonOf(found[0]!.r.stdout) as VmInfo) } };
  if (failed.length)
    throw new FanOutError(
      `VM '${name}' is not on ${names(results.filter((x) => !failed.includes(x))) || "any host that answered"}; ${names(failed)} did not answer`,
      EXIT.unavailable,
      "hosts_unavailable",
    );
  const where = targets.length === 1 ? `host '${targets[0]!.name}'` : `any host of the inventory (${names(results)})`;
  throw new FanOutError(`VM '${name}' is not on ${where}`, EXIT.notFound, "vm_not_found");
}

async function infoOrDelete(a: FanOutArgs, targets: HostRecord[], run: Run, io: CliIo): Promise<number> {
  if (!a.name) throw new FanOutUsageError(`usage: svc-vm ${a.verb} vm <name> (-C HOST | --all-hosts)`);
  const { host, info } = await locate(a.name, targets, run, io);
  if (a.verb === "info") return (io.out(a.json ? JSON.stringify(info, null, 2) : vmDetails(info, info.host)), EXIT.ok);
  if (!a.yes) {
    if (!io.isTTY) throw new FanOutUsageError(`refusing to delete VM '${a.name}' on host '${host.name}' without -y (no terminal to ask)`);
    const answer = (await io.ask(`Delete VM '${a.name}' on host '${host.name}' and its disks? [y/N] `)).trim().toLowerCase();
    if (answer !== "y" && answer !== "yes") return (io.err("not deleted"), EXIT.error);
  }
  const r = await run(host, [...a.rest, ...(a.yes ? [] : ["-y"]), "-o", "json"]);
  const body = jsonOf(r.stdout) as { deleted?: boolean; note?: string } | undefined;
  if (r.code !== 0 || !body) return report(io, [{ host, r }]);
  io.out(a.json ? JSON.stringify({ host: host.name, ...body }, null, 2) : `deleted VM ${a.name} on host ${host.name}${body.note ? ` (${body.note})` : ""}`);
  return EXIT.ok;
}

/** Any other verb on the one host -C names: its output relayed, a `host` field added to a JSON object. */
async function relay(a: FanOutArgs, host: HostRecord, run: Run, io: CliIo): Promise<number> {
  const r = await run(host, a.json ? [...a.rest, "-o", "json"] : a.rest, !a.json);
  if (r.unreachable) return report(io, [{ host, r }]);
  const body = a.json ? jsonOf(r.stdout) : undefined;
  if (body && typeof body === "object" && !Array.isArray(body)) io.out(JSON.stringify({ host: host.name, ...body }, null, 2));
  else if (a.json && r.stdout.trim()) io.out(r.stdout.trimEnd());
  return r.code;
}

/**
 * svc-vm with -C/--host HOST or --all-hosts (the svc-vm bin hands over only then): runs svc-vm on
 * the hosts of the inventory (DATABASE_URL) and merges what they answer, each VM with its host.
 */
export async function runVmHostsCli(argv: readonly string[], io: CliIo): Promise<number> {
  let json = argv.some((x, i) => (x === "-o" || x === "--output") && argv[i + 1] === "json") || argv.includes("--output=json");
  const ctx = new CliContext(io);
  try {
    const a = parseFanOutArgs(argv);
    json = a.json;
    // Help is svc-vm's own, which documents -C and --all-hosts.
    if (a.help || !a.verb) return await runVmCli(a.rest, io);
    const key = `${a.verb} ${a.noun ?? ""}`.trim();
    if (a.rest.includes("--orphans")) {
      if (key !== "list vm" && key !== "list vms") throw new FanOutUsageError("--orphans goes with list vm");
      if (a.host !== undefined) throw new FanOutUsageError("--orphans looks at every cloud host: give no -C");
      const hosts = await (await ctx.service()).inventory.list();
      return await listOrphans(ctx.db, hosts, ctx.secrets, a.json, io, ctx.cloudOptions);
    }
    if (!a.allHosts && a.host === undefined) throw new FanOutUsageError("give -C HOST or --all-hosts (without them: svc-vm on this host)");
    if (a.allHosts && !ALL_HOSTS.includes(key)) {
      throw new FanOutUsageError(`--all-hosts works with list vm, list image, info vm and delete vm; '${key.slice(0, 40)}' goes to one host: -C HOST`);
    }
    const all = await (await ctx.service()).inventory.list();
    const targets = a.allHosts ? all : [pickHost(all, a.host!)];
    const vmCli = ctx.config.vm.cli;
    const timeoutMs = TIMEOUT_MS[a.verb] ?? 3_600_000;
    const run: Run = (h, args, stream = false) =>
      runOnHost(h, args, {
        vmCli,
        env: io.env,
        timeoutMs,
        secrets: ctx.secrets,
        cloudOptions: ctx.cloudOptions,
        isTTY: io.isTTY,
        ask: (q) => io.ask(q),
        ...(stream ? { onStdout: (t) => io.out(t), onStderr: (t) => io.err(t) } : {}),
      });
    if (key.startsWith("list ") && ALL_HOSTS.includes(key)) return await list(a, targets, run, io);
    if (key === "info vm" || key === "delete vm") return await infoOrDelete(a, targets, run, io);
    return await relay(a, targets[0]!, run, io);
  } catch (e) {
    const usage = e instanceof FanOutUsageError || e instanceof UsageError;
    const exit = e instanceof FanOutError ? e.exit : usage ? EXIT.usage : EXIT.error;
    const code = e instanceof FanOutError ? e.code : usage ? "invalid_input" : "error";
    const message = (e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, " ");
    if (json) io.out(JSON.stringify({ error: { code, message }, exit_code: exit }));
    io.err(`svc-vm: error: ${message}`);
    return exit;
  } finally {
    await ctx.close();
  }
}
