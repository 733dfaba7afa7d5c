import { isIP } from "node:net";

/** An address's bits, most significant first (IPv4: 32, IPv6: 128); the address is valid (isIP). */
function bitsOf(addr: string, v: 4 | 6): string {
  if (v === 4)
    return addr
      .split(".")
      .map((o) => Number(o).toString(2).padStart(8, "0"))
      .join("");
  let s = addr;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (v4) {
    const b = bitsOf(v4[1]!, 4);
    s = `${s.slice(0, -v4[1]!.length)}${parseInt(b.slice(0, 16), 2).toString(16)}:${parseInt(b.slice(16), 2).toString(16)}`;
  }
  const [head, tail] = s.split("::") as [string, string | undefined];
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill("0"), ...t];
  return groups.map((g) => parseInt(g, 16).toString(2).padStart(16, "0")).join("");
}

/** `address/length` with an IPv4 or IPv6 address, split; the length is not checked against the family's `max`. Null for anything else. */
function parseCidr(c: string): { address: string; family: 4 | 6; len: number; max: number } | null {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(c);
  const family = m ? isIP(m[1]!) : 0;
  if (!m || (family !== 4 && family !== 6)) return null;
  return { address: m[1]!, family, len: Number(m[2]), max: family === 4 ? 32 : 128 };
}

/** A CIDR's family and how many addresses it holds; null for anything that is not `address/length` of a valid length. */
export function cidrAddresses(c: string): { family: 4 | 6; count: bigint } | null {
  const p = parseCidr(c);
  return !p || p.len > p.max ? null : { family: p.family, count: 1n << BigInt(p.max - p.len) };
}

/**
 * Why `c` is not a CIDR svc opens a firewall to, or null when it is: `address/length`, IPv4 or
 * IPv6, no host bits set (192.0.2.1/24 is refused, naming 192.0.2.0/24), and the whole address
 * space written only as 0.0.0.0/0 or ::/0 (the values that need an admin).
 */
export function cidrProblem(c: string): string | null {
  const p = parseCidr(c);
  if (!p) return `'${c}' is not a CIDR such as 192.0.2.0/24 or 2001:db8::/32`;
  const { address, family: v, len, max } = p;
  if (len > max) return `'${c}': an IPv${v} prefix is at most /${max}`;
  if (len === 0 && c !== "0.0.0.0/0" && c !== "::/0") return `'${c}' is every address: write it 0.0.0.0/0 or ::/0`;
  const bits = bitsOf(address, v);
  if (bits.slice(len).includes("1")) {
    const net = bits.slice(0, len).padEnd(max, "0");
    const text =
      v === 4
        ? net
            .match(/.{8}/g)!
            .map((b) => parseInt(b, 2))
            .join(".")
        : net
            .match(/.{16}/g)!
            .map((b) => parseInt(b, 2).toString(16))
            .join(":");
    return `'${c}' has host bits set: the network is ${text}/${len}`;
  }
  return null;
}
