import { addressPolicy } from "./address-policy";

test("the default networks allow loopback (IPv4, IPv6, IPv4-mapped) and nothing else", () => {
  const p = addressPolicy(["127.0.0.0/8", "::1/128"]);
  for (const a of ["127.0.0.1", "127.9.9.9", "::1", "::ffff:127.0.0.1"]) expect([a, p.refusal(a)]).toEqual([a, undefined]);
  for (const a of ["10.0.0.1", "192.168.101.5", "8.8.8.8", "::2", "fd00::1", "0.0.0.0", "::"]) expect(p.refusal(a)).toMatch(/is not in the networks SVC_HTTP_CHECK_ALLOW/);
});

test("link-local is refused even when every network is allowed, in every spelling", () => {
  const p = addressPolicy(["0.0.0.0/0", "::/0"]);
  for (const a of ["169.254.169.254", "169.254.0.1", "fe80::1", "febf:ffff::1", "::ffff:169.254.169.254", "::ffff:a9fe:a9fe"])
    expect(p.refusal(a)).toMatch(/link-local .*always refused/);
  expect(p.refusal("192.168.101.5")).toBeUndefined();
  expect(p.refusal("fec0::1")).toBeUndefined();
});

test("a lab network the operator lists is reachable; what is not an address is refused", () => {
  const p = addressPolicy(["127.0.0.0/8", "192.168.101.0/24"]);
  expect(p.refusal("192.168.101.20")).toBeUndefined();
  expect(p.refusal("192.168.102.20")).toMatch(/not in the networks .*\(127\.0\.0\.0\/8, 192\.168\.101\.0\/24\)/);
  expect(p.refusal("localhost")).toBe('"localhost" is not an IP address');
  expect(() => addressPolicy(["192.168.1.0/33"])).toThrow(/not a network/);
});
