import { hostNameSchema } from "@svc/hosts";

export const WORKER_USAGE = `usage: tsx services/worker/src/main.ts [--hosts NAME[,NAME...]|all]

Runs task tries from the shared \`tasks\` queue and from the queue of each hypervisor host it
serves (\`tasks@<host>\`), SVC_WORKER_CONCURRENCY at a time per queue.

  --hosts LIST   the hosts of the inventory this worker serves (default: SVC_WORKER_HOSTS, else
                 all: every host in the inventory, including ones added later). A try routed to
                 another host is moved to that host's queue, never run here.
  -h, --help     this text
`;

export type HostsChoice = { kind: "help" } | { kind: "hosts"; hosts: string[] | "all" };

/**
 * The hosts a worker serves, from `--hosts` or else `configured` (SVC_WORKER_HOSTS, config.worker.hosts);
 * an invalid name is an error, never dropped.
 */
export function parseHostsOption(argv: string[], configured: string | undefined): HostsChoice {
  let value = configured;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "-h" || a === "--help") return { kind: "help" };
    if (a === "--hosts") {
      if (argv[i + 1] === undefined) throw new Error("--hosts needs a value: NAME[,NAME...] or all");
      value = argv[++i];
    } else if (a.startsWith("--hosts=")) value = a.slice("--hosts=".length);
    else throw new Error(`unknown argument '${a}'\n${WORKER_USAGE}`);
  }
  if (value === undefined || value.trim() === "all") return { kind: "hosts", hosts: "all" };
  const names = value.split(",").map((s) => s.trim());
  for (const n of names) {
    const r = hostNameSchema.safeParse(n);
    if (!r.success) throw new Error(`--hosts / SVC_WORKER_HOSTS: '${n}' is not a host name (${r.error.issues[0]?.message ?? "invalid"})`);
  }
  return { kind: "hosts", hosts: [...new Set(names)] };
}
