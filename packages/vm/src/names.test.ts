import { HOSTILE_STRINGS, NUL_STRINGS } from "@svc/testing";
import { assertImageName, assertNetName, assertVmName } from "./names";

describe("VM, image and network names", () => {
  it("accepts names matching ^[a-z][a-z0-9-]{0,62}$", () => {
    for (const n of ["a", "vm1", "web-01", `a${"b".repeat(62)}`]) expect(assertVmName(n)).toBe(n);
  });

  it("rejects every hostile string and NUL string as a VM, image or network name, with a clear message", () => {
    for (const s of [...HOSTILE_STRINGS, ...NUL_STRINGS]) {
      expect(() => assertVmName(s)).toThrow(/invalid VM name/);
      expect(() => assertImageName(s)).toThrow(/invalid image name/);
      expect(() => assertNetName(s)).toThrow(/invalid network name/);
    }
  });

  it("rejects option look-alikes, upper case, too long names and path tricks", () => {
    for (const n of ["-rf", "--help", "Vm", "1vm", "a".repeat(64), "a_b", "a.b"]) expect(() => assertVmName(n)).toThrow(/invalid VM name/);
    for (const n of ["..", "a/../b", "-x", ".hidden"]) expect(() => assertImageName(n)).toThrow(/invalid image name/);
  });
});
