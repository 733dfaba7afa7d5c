import type { LibvirtObjectState } from "./types";

/** os-release text → ID, VERSION_ID, PRETTY_NAME (quotes removed; parsed, never sourced). */
export function parseOsRelease(text: string): { id: string; versionId: string; prettyName: string } {
  const fields: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (m) fields[m[1]!] = m[2]!.replace(/^["']|["']$/g, "");
  }
  return { id: fields.ID ?? "", versionId: fields.VERSION_ID ?? "", prettyName: fields.PRETTY_NAME ?? "" };
}

/** `dpkg-query -W -f='${Package}\t${Status}\n'` output → the installed package names. */
export function parseDpkgInstalled(stdout: string): Set<string> {
  const out = new Set<string>();
  for (const line of stdout.split("\n")) {
    const [name, status] = line.split("\t");
    if (name && status?.trim() === "install ok installed") out.add(name.split(":")[0]!);
  }
  return out;
}

/** `rpm -q --qf '%{NAME}\n' a b` output → installed names ("package x is not installed" lines are not). */
export function parseRpmInstalled(stdout: string, asked: readonly string[]): Set<string> {
  const lines = new Set(stdout.split("\n").map((l) => l.trim()));
  return new Set(asked.filter((p) => lines.has(p)));
}

/** `firewall-cmd --list-ports` or `ufw status` output → "8080/tcp" entries that are open. */
export function parseOpenPorts(stdout: string, tool: "firewalld" | "ufw"): string[] {
  if (tool === "firewalld") return stdout.split(/\s+/).filter((p) => /^\d+(-\d+)?\/(tcp|udp|sctp|dccp)$/.test(p));
  const ports: string[] = [];
  for (const line of stdout.split("\n")) {
    const m = /^(\d+)\/(tcp|udp)\s+ALLOW\b/.exec(line.trim());
    if (m) ports.push(`${m[1]}/${m[2]}`);
  }
  return ports;
}

/** `semanage fcontext -l -C` output → "regex=type" for each local rule. */
export function parseFcontextRules(stdout: string): string[] {
  const rules: string[] = [];
  for (const line of stdout.split("\n")) {
    const m = /^(\/\S*)\s+.*?\s(?:\w+_u):(?:\w+_r):(\w+_t)(?::\S+)?\s*$/.exec(line.trim());
    if (m) rules.push(`${m[1]}=${m[2]}`);
  }
  return rules;
}

/** The SELinux type of a context string such as `system_u:object_r:virt_image_t:s0`. */
export function selinuxType(context: string): string {
  return context.trim().split(":")[2] ?? "";
}

/** `virsh pool-info` / `virsh net-info` output → active and autostart. */
export function parseVirshInfo(stdout: string): LibvirtObjectState {
  const field = (k: string) => new RegExp(`^${k}:\\s*(\\S+)`, "m").exec(stdout)?.[1] ?? "";
  const state = field("State");
  const active = state ? state === "running" : field("Active") === "yes";
  return { active, autostart: field("Autostart") === "yes" };
}

/** The fcontext rule that labels a directory and everything under it. */
export function fcontextSpec(path: string): string {
  return `${path.replace(/\/+$/, "")}(/.*)?`;
}

/**
 * `ss -Hltnp` → each listening TCP socket's port and the names of the processes holding it, e.g.
 * `LISTEN 0 128 0.0.0.0:22 0.0.0.0:* users:(("sshd",pid=5242,fd=3))` → { port: 22, processes: ["sshd"] }.
 */
export function parseListeners(stdout: string): { port: number; processes: string[] }[] {
  const out: { port: number; processes: string[] }[] = [];
  for (const line of stdout.split("\n")) {
    const local = line.trim().split(/\s+/)[3];
    const port = Number(/:(\d+)$/.exec(local ?? "")?.[1]);
    if (!Number.isInteger(port) || port <= 0) continue;
    out.push({ port, processes: [...line.matchAll(/\("([^"]+)",pid=/g)].map((m) => m[1]!) });
  }
  return out;
}
