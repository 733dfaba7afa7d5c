import { VmInputError } from "../errors";

/** Options that take a value, with their long name. */
const VALUE_OPTS: Record<string, string> = {
  "-o": "output",
  "--output": "output",
  "-i": "image",
  "--image": "image",
  "-P": "param",
  "--param": "param",
  "--ssh-key": "ssh-key",
  "--images-dir": "images-dir",
  "--disks-dir": "disks-dir",
  "--uri": "uri",
  "--driver": "driver",
  "--virt-type": "virt-type",
  "--wait-timeout": "wait-timeout",
  "--known-hosts": "known-hosts",
  "--identity": "identity",
  "--timeout": "timeout",
  "--owner-dag": "owner-dag",
  "--owner-run": "owner-run",
  "--owner-task": "owner-task",
  "--url": "url",
  "--sha256": "sha256",
  "--checksum-url": "checksum-url",
};
const FLAGS: Record<string, string> = {
  "-y": "yes",
  "--yes": "yes",
  "--wait": "wait",
  "-h": "help",
  "--help": "help",
  "--trust-on-first-use": "trust-on-first-use",
  "--force-foreign": "force-foreign",
  "--force": "force",
  "--adopt-same-dag": "adopt-same-dag",
  "--all": "all",
  "--orphans": "orphans",
};

/** argv split into positionals, repeatable options, flags and the words after `--`. */
export interface ParsedArgs {
  positionals: string[];
  options: Map<string, string[]>;
  flags: Set<string>;
  rest: string[];
}

/** Parse svc-vm's argv; unknown options are usage errors. */
export function parseArgs(argv: readonly string[]): ParsedArgs {
  const out: ParsedArgs = { positionals: [], options: new Map(), flags: new Set(), rest: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") {
      out.rest = argv.slice(i + 1);
      break;
    }
    const eq = a.startsWith("--") ? a.indexOf("=") : -1;
    const key = eq > 0 ? a.slice(0, eq) : a;
    if (VALUE_OPTS[key]) {
      const v = eq > 0 ? a.slice(eq + 1) : argv[++i];
      if (v === undefined) throw new VmInputError(`option ${key} needs a value`);
      const name = VALUE_OPTS[key];
      out.options.set(name, [...(out.options.get(name) ?? []), v]);
    } else if (FLAGS[key] && eq < 0) {
      out.flags.add(FLAGS[key]);
    } else if (a.startsWith("-") && a !== "-") {
      throw new VmInputError(`unknown option ${JSON.stringify(a).slice(0, 60)} (see svc-vm --help)`);
    } else {
      out.positionals.push(a);
    }
  }
  return out;
}

/** The last value of an option, if given. */
export function opt(p: ParsedArgs, name: string): string | undefined {
  const v = p.options.get(name);
  return v ? v[v.length - 1] : undefined;
}
