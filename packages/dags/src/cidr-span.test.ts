import { cidrAddresses } from "./cidr";
import { cidrSpanExceeded } from "./cidr-span";

const span = { role: "admin" as const, ipv4: 8, ipv6: 32 };

test("a CIDR's size is counted per family; what is not address/length counts as nothing", () => {
  expect(cidrAddresses("10.0.0.0/8")).toEqual({ family: 4, count: 1n << 24n });
  expect(cidrAddresses("2001:db8::/32")).toEqual({ family: 6, count: 1n << 96n });
  expect(cidrAddresses("10.0.0.0/33")).toBeNull();
  expect(cidrAddresses("10.0.0.0")).toBeNull();
  expect(cidrAddresses("example.org/8")).toBeNull();
});

test("one /8 stays within the bound; a /8 and one address more pass it, the widest named first", () => {
  expect(cidrSpanExceeded(span, ["10.0.0.0/8"])).toBeNull();
  expect(cidrSpanExceeded(span, ["192.0.2.1/32", "10.0.0.0/8"])).toEqual({
    role: "admin",
    values: ["10.0.0.0/8", "192.0.2.1/32"],
    why: "more IPv4 addresses than a /8",
  });
});

test("the two halves of the space pass the bound as the whole does; the families are counted apart", () => {
  expect(cidrSpanExceeded(span, ["0.0.0.0/1", "128.0.0.0/1"])?.values).toEqual(["0.0.0.0/1"]);
  expect(cidrSpanExceeded(span, ["10.0.0.0/9", "2001:db8::/33", "2001:db8:8000::/33"])).toBeNull();
  expect(cidrSpanExceeded(span, ["2001:db8::/33", "2001:db8:8000::/33", "2001:db9::/33", "10.0.0.0/9"])?.why).toBe("more IPv6 addresses than a /32");
  expect(cidrSpanExceeded({ role: "admin", ipv4: 8 }, ["::/0"])).toBeNull();
});
