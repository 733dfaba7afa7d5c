// The ports each product's clients need, in one table: what a product VM's own firewall opens (to
// the DAG's `allow_from` only) on a cloud host, what the plan lists before approval, and what
// docs/clouds.md shows (a test holds the page to this table). Derived from the roles: what each
// one's service listens on for its clients.
import { portText } from "./firewall";
import type { FirewallRule } from "./types";

export const PRODUCTS = ["identity", "ca", "registry", "router"] as const;
export type Product = (typeof PRODUCTS)[number];
export const REGISTRY_TYPES = ["distribution", "mirror-registry", "harbor"] as const;
export type RegistryType = (typeof REGISTRY_TYPES)[number];

/** A port a product's clients reach. */
export interface ProductPort {
  proto: "tcp" | "udp";
  port: number;
  what: string;
}

/** Values of the product's DAG that move its ports (the CA's `ca_port`, the registry's `registry_type`). */
export interface ProductOptions {
  ca_port?: number | undefined;
  registry_type?: RegistryType | undefined;
}

const REGISTRY_PORT: Record<RegistryType, number> = { distribution: 5000, "mirror-registry": 8443, harbor: 443 };

/** The table: per product, its client ports given its options (the defaults when none). */
export const PRODUCT_PORTS: Record<Product, (o: ProductOptions) => ProductPort[]> = {
  // Samba AD DC (Debian 12) and FreeIPA (RHEL family): the ports the identity_server role's clients use.
  identity: () => [
    { proto: "tcp", port: 53, what: "DNS" },
    { proto: "udp", port: 53, what: "DNS" },
    { proto: "tcp", port: 88, what: "Kerberos" },
    { proto: "udp", port: 88, what: "Kerberos" },
    { proto: "tcp", port: 389, what: "LDAP" },
    { proto: "tcp", port: 464, what: "kpasswd" },
    { proto: "udp", port: 464, what: "kpasswd" },
    { proto: "tcp", port: 636, what: "LDAPS" },
  ],
  // ca_server: the CA's HTTPS API on ca_port (default 443).
  ca: (o) => [{ proto: "tcp", port: o.ca_port ?? 443, what: "CA HTTPS API" }],
  // registry: HTTPS on the port of its registry_type.
  registry: (o) => [{ proto: "tcp", port: REGISTRY_PORT[o.registry_type ?? "distribution"], what: "registry HTTPS" }],
  // router: dnsmasq's DNS for the lab (its DHCP serves only the lab networks, never the uplink).
  router: () => [
    { proto: "tcp", port: 53, what: "DNS" },
    { proto: "udp", port: 53, what: "DNS" },
  ],
};

/** The rows of docs/clouds.md's table: each product with its ports for each variant of its options. */
export function productPortRows(): { product: string; ports: string }[] {
  const text = (ps: ProductPort[]) => ps.map((p) => `${p.proto}/${p.port} (${p.what})`).join(", ");
  return [
    { product: "identity", ports: text(PRODUCT_PORTS.identity({})) },
    { product: "ca", ports: text(PRODUCT_PORTS.ca({})) },
    ...REGISTRY_TYPES.map((t) => ({ product: `registry (${t})`, ports: text(PRODUCT_PORTS.registry({ registry_type: t })) })),
    { product: "router", ports: text(PRODUCT_PORTS.router({})) },
  ];
}

/**
 * A product VM's firewall: SSH (22) from the addresses svc connects from, and the product's ports
 * to `allowFrom` only (none when it is empty). Nothing else is open: the providers drop the rest.
 */
export function productFirewall(product: Product, options: ProductOptions, allowFrom: readonly string[], sshFrom: readonly string[]): FirewallRule[] {
  const ssh: FirewallRule[] = [{ proto: "tcp", port: 22, from: [...sshFrom] }];
  if (!allowFrom.length) return ssh;
  return [...ssh, ...PRODUCT_PORTS[product](options).map((p) => ({ proto: p.proto, port: p.port, from: [...allowFrom] }))];
}

/** The rules in one line for a plan or a log: `tcp/22 from 192.0.2.1/32; tcp/53, udp/53 from 10.0.0.0/8`. */
export function firewallText(rules: readonly FirewallRule[]): string {
  const groups = new Map<string, string[]>();
  for (const r of rules) {
    const k = [...new Set(r.from)].sort().join(", ");
    groups.set(k, [...(groups.get(k) ?? []), `${r.proto}/${portText(r)}`]);
  }
  return [...groups.entries()].map(([from, ports]) => `${ports.join(", ")} from ${from}`).join("; ");
}
