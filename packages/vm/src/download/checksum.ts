import { DownloadError } from "./errors";

/** One line of a checksum file. */
export interface ChecksumEntry {
  algorithm: "sha256" | "sha512";
  file: string;
  hex: string;
}

const BSD = /^(SHA256|SHA512) \((.+)\) = ([0-9a-fA-F]+)$/;
const GNU = /^([0-9a-fA-F]+) [ *](.+)$/;
const BY_LENGTH: Record<number, ChecksumEntry["algorithm"]> = { 64: "sha256", 128: "sha512" };

/**
 * The entries of a checksum file in either common layout: GNU (`<hex>  <file>`, as sha256sum
 * writes; the algorithm follows from the digest's length) or BSD (`SHA256 (<file>) = <hex>`,
 * as CentOS and Rocky publish). Comments and other lines are skipped.
 */
export function parseChecksumFile(text: string): ChecksumEntry[] {
  const out: ChecksumEntry[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const bsd = BSD.exec(line);
    if (bsd) {
      const algorithm = bsd[1] === "SHA256" ? "sha256" : "sha512";
      if (bsd[3]!.length === (algorithm === "sha256" ? 64 : 128)) out.push({ algorithm, file: bsd[2]!, hex: bsd[3]!.toLowerCase() });
      continue;
    }
    const gnu = GNU.exec(line);
    const algorithm = gnu ? BY_LENGTH[gnu[1]!.length] : undefined;
    if (gnu && algorithm) out.push({ algorithm, file: gnu[2]!.trim(), hex: gnu[1]!.toLowerCase() });
  }
  return out;
}

/**
 * The entry for `fileName` (matched on the last path segment). A file with a single entry under
 * another name is taken as is: the publishers' "latest" checksum files name the dated build the
 * "latest" link points to.
 */
export function pickChecksum(entries: ChecksumEntry[], fileName: string, source: string): ChecksumEntry {
  const base = (f: string) => f.split("/").pop()!;
  const named = entries.filter((e) => base(e.file) === fileName);
  const strongest = named.find((e) => e.algorithm === "sha512") ?? named[0];
  if (strongest) return strongest;
  if (entries.length === 1) return entries[0]!;
  const listed = entries.length
    ? entries
        .map((e) => base(e.file))
        .slice(0, 10)
        .join(", ")
    : "no SHA-256 or SHA-512 lines";
  throw new DownloadError(`the checksum file ${source} has no entry for ${fileName} (it lists: ${listed})`);
}
