import { assertFirewallRules, bySources, portText } from "./firewall";

describe("a VM's firewall rules", () => {
  it("accepts tcp/udp ports and ranges from IPv4 and IPv6 CIDRs", () => {
    expect(() =>
      assertFirewallRules([
        { proto: "tcp", port: 22, from: ["192.0.2.10/32"] },
        { proto: "udp", port: 5000, toPort: 5010, from: ["2001:db8::/32", "0.0.0.0/0"] },
      ]),
    ).not.toThrow();
  });

  it.each([
    [{ proto: "icmp", port: 1, from: ["192.0.2.0/24"] }, /tcp or udp/],
    [{ proto: "tcp", port: 0, from: ["192.0.2.0/24"] }, /1-65535/],
    [{ proto: "tcp", port: 70000, from: ["192.0.2.0/24"] }, /1-65535/],
    [{ proto: "tcp", port: 90, toPort: 80, from: ["192.0.2.0/24"] }, /must rise/],
    [{ proto: "tcp", port: 22, from: [] }, /no source CIDR/],
    [{ proto: "tcp", port: 22, from: ["192.0.2.1"] }, /not a CIDR/],
    [{ proto: "tcp", port: 22, from: ["192.0.2.0/33"] }, /not a CIDR/],
    [{ proto: "tcp", port: 22, from: ["example.com/24"] }, /not a CIDR/],
    [{ proto: "tcp", port: 22, from: ["10.0.0.0/8; rm -rf /"] }, /not a CIDR/],
  ])("refuses %j", (rule, msg) => {
    expect(() => assertFirewallRules([rule as never])).toThrow(msg);
  });

  it("groups rules by their set of sources and writes ports as providers do", () => {
    const g = bySources([
      { proto: "tcp", port: 22, from: ["192.0.2.1/32"] },
      { proto: "tcp", port: 80, toPort: 81, from: ["198.51.100.0/24", "192.0.2.1/32"] },
      { proto: "udp", port: 53, from: ["192.0.2.1/32", "198.51.100.0/24"] },
    ]);
    expect(g.map((x) => [x.from, x.rules.map(portText)])).toEqual([
      [["192.0.2.1/32"], ["22"]],
      [
        ["192.0.2.1/32", "198.51.100.0/24"],
        ["80-81", "53"],
      ],
    ]);
  });
});
