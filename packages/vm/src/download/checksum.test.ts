import { parseChecksumFile, pickChecksum } from "./checksum";

const A = "a".repeat(64);
const B = "B".repeat(128);
const C = "c".repeat(64);

describe("checksum files", () => {
  it("reads GNU lines (algorithm from the digest's length) and BSD lines, skipping comments and junk", () => {
    const text = [
      "# CentOS-Stream-GenericCloud-9-20250101.0.x86_64.qcow2: 123 bytes",
      `SHA256 (CentOS-Stream-GenericCloud-9-20250101.0.x86_64.qcow2) = ${A}`,
      `${B}  debian-12-genericcloud-amd64.qcow2`,
      `${C} *binary-mode.img`,
      "deadbeef  too-short.img",
      `SHA256 (bad-length.img) = ${B}`,
      "",
    ].join("\r\n");
    expect(parseChecksumFile(text)).toEqual([
      { algorithm: "sha256", file: "CentOS-Stream-GenericCloud-9-20250101.0.x86_64.qcow2", hex: A },
      { algorithm: "sha512", file: "debian-12-genericcloud-amd64.qcow2", hex: B.toLowerCase() },
      { algorithm: "sha256", file: "binary-mode.img", hex: C },
    ]);
  });

  it("picks the entry named like the download, else the only entry, else says what the file lists", () => {
    const many = parseChecksumFile(`${A}  debian-12-genericcloud-amd64.json\n${B}  debian-12-genericcloud-amd64.qcow2\n${C}  other.raw\n`);
    expect(pickChecksum(many, "debian-12-genericcloud-amd64.qcow2", "SUMS").hex).toBe(B.toLowerCase());
    const single = parseChecksumFile(`SHA256 (Rocky-9-GenericCloud-Base-9.6-20250531.0.x86_64.qcow2) = ${A}\n`);
    expect(pickChecksum(single, "Rocky-9-GenericCloud-Base.latest.x86_64.qcow2", "CHECKSUM").hex).toBe(A);
    expect(() => pickChecksum(many, "missing.qcow2", "http://127.0.0.1/SUMS")).toThrow(
      "the checksum file http://127.0.0.1/SUMS has no entry for missing.qcow2 (it lists: debian-12-genericcloud-amd64.json, debian-12-genericcloud-amd64.qcow2, other.raw)",
    );
    expect(() => pickChecksum([], "x.qcow2", "empty")).toThrow(/no SHA-256 or SHA-512 lines/);
  });
});
