// The real clients the identity and lab e2e tests run on the host against an identity server's
// 127.0.0.1 forwards: dig over TCP, a krb5.conf naming the forwarded KDC, ldapsearch over LDAPS.
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";

export const runClient = (cmd: string, args: string[], o: { input?: string; env?: NodeJS.ProcessEnv } = {}) =>
  spawnSync(cmd, args, { encoding: "utf8", timeout: 120_000, input: o.input, env: { ...process.env, ...o.env } });

// DNS over TCP: qemu's user-mode networking (restrict=on) does not carry the guest's UDP replies to
// a forwarded port back to the host; TCP forwards work.
const digArgs = (port: number, name: string, type: string) => ["+tcp", "+time=20", "+tries=3", "-p", String(port), "@127.0.0.1", name, type];

/** dig +short through a forwarded DNS port: the answers, one a line. */
export const digShort = (port: number, name: string, type: string): string => runClient("dig", ["+short", ...digArgs(port, name, type)]).stdout.trim();

/** The response code dig reports (NOERROR, NXDOMAIN, ...), undefined when it got no answer. */
export const digStatus = (port: number, name: string, type: string): string | undefined => /status: ([A-Z]+)/.exec(runClient("dig", digArgs(port, name, type)).stdout)?.[1];

/**
 * A krb5.conf in `dir` for `realm` with its KDC on 127.0.0.1:`kdcPort` (TCP); `domain` maps the
 * domain's host names to the realm, and no name is looked up or canonicalised in the host's DNS.
 * Returns the environment for kinit, klist and ssh (the config and a ccache of `ccache`'s name).
 */
export function krb5Env(dir: string, realm: string, kdcPort: number, domain?: string, ccache = "ccache"): Record<string, string> {
  const conf = path.join(dir, "krb5.conf");
  writeFileSync(
    conf,
    [
      "[libdefaults]",
      ` default_realm = ${realm}`,
      " dns_lookup_kdc = false",
      " dns_lookup_realm = false",
      " dns_canonicalize_hostname = false",
      " rdns = false",
      " udp_preference_limit = 1",
      "[realms]",
      ` ${realm} = {`,
      `  kdc = 127.0.0.1:${kdcPort}`,
      " }",
      ...(domain ? ["[domain_realm]", ` .${domain} = ${realm}`, ` ${domain} = ${realm}`] : []),
      "",
    ].join("\n"),
  );
  return { KRB5_CONFIG: conf, KRB5CCNAME: `FILE:${path.join(dir, ccache)}` };
}

/** The DN of the domain (DC=a,DC=b for a.b). */
export const baseDn = (domain: string): string =>
  domain
    .split(".")
    .map((p) => `DC=${p}`)
    .join(",");

/**
 * ldapsearch over the forwarded LDAPS port, bound as `bindDn` with the password in `passwordFile`;
 * Samba's certificate is self-signed and names the server, not 127.0.0.1.
 */
export const ldapsSearch = (port: number, bindDn: string, passwordFile: string, base: string, ...filterAndAttrs: string[]) =>
  runClient("ldapsearch", ["-LLL", "-x", "-H", `ldaps://127.0.0.1:${port}`, "-D", bindDn, "-y", passwordFile, "-b", base, ...filterAndAttrs], {
    env: { LDAPTLS_REQCERT: "never" },
  });
