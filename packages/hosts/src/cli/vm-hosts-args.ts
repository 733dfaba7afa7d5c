/** svc-vm's argv as the fan-out sees it: where it goes, the verb, and what each host's svc-vm gets. */
export interface FanOutArgs {
  /** -C/--host NAME. */
  host?: string;
  /** --all-hosts. */
  allHosts: boolean;
  json: boolean;
  help: boolean;
  yes: boolean;
  /** `list vm` → verb list, noun vm; name is the next positional (info/delete/ssh). */
  verb?: string;
  noun?: string;
  name?: string;
  /** argv without -C/--host, --all-hosts and -o/--output (the words after `--` included). */
  rest: string[];
}

/** A usage error of the fan-out (exit 2), raised before any host is contacted. */
export class FanOutUsageError extends Error {}

// svc-vm's options that take a value (packages/vm/src/cli/parse-args.ts): their value is no positional.
const VALUE_OPTS = new Set(
  "-o --output -i --image -P --param --ssh-key --images-dir --disks-dir --uri --driver --virt-type --wait-timeout --known-hosts --identity --timeout --owner-dag --owner-run --owner-task --url --sha256 --checksum-url".split(
    " ",
  ),
);
/** Where a VM lives comes from the inventory: one value for every host would be wrong on the others. */
const PER_HOST = ["--uri", "--images-dir", "--disks-dir"];

/** Split svc-vm's argv for the fan-out; options it does not know are left to each host's svc-vm. */
export function parseFanOutArgs(argv: readonly string[]): FanOutArgs {
  const out: FanOutArgs = { allHosts: false, json: false, help: false, yes: false, rest: [] };
  const positionals: string[] = [];
  const setHost = (v: string | undefined) => {
    if (!v) throw new FanOutUsageError("-C/--host needs a host name (see svc-hosts list)");
    if (out.host !== undefined && out.host !== v) throw new FanOutUsageError("give -C/--host once");
    out.host = v;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") {
      out.rest.push(...argv.slice(i));
      break;
    }
    const eq = a.startsWith("--") ? a.indexOf("=") : -1;
    const key = eq > 0 ? a.slice(0, eq) : a;
    const value = () => (eq > 0 ? a.slice(eq + 1) : argv[++i]);
    if (key === "--all-hosts") out.allHosts = true;
    else if (key === "-C" || key === "--host") setHost(value());
    else if (/^-C./.test(a)) setHost(a.slice(2).replace(/^=/, ""));
    else if (key === "-o" || key === "--output") {
      const v = value();
      if (v !== "table" && v !== "json") throw new FanOutUsageError(`-o must be table or json, got ${JSON.stringify(v ?? "").slice(0, 30)}`);
      out.json = v === "json";
    } else if (PER_HOST.includes(key)) {
      throw new FanOutUsageError(`${key} cannot be combined with -C/--host or --all-hosts: each host's comes from the inventory (svc-hosts info HOST)`);
    } else if (VALUE_OPTS.has(key)) {
      out.rest.push(a);
      if (eq < 0 && i + 1 < argv.length) out.rest.push(argv[++i]!);
    } else {
      if (key === "-h" || key === "--help") out.help = true;
      if (key === "-y" || key === "--yes") out.yes = true;
      if (!a.startsWith("-") || a === "-") positionals.push(a);
      out.rest.push(a);
    }
  }
  if (out.allHosts && out.host !== undefined) throw new FanOutUsageError("give either -C/--host HOST or --all-hosts, not both");
  [out.verb, out.noun, out.name] = positionals;
  return out;
}
