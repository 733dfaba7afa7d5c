import { VmInputError } from "../errors";
import { downloadImage } from "../download/download-image";
import type { VmSettings } from "../settings";
import type { VmDriver } from "../types";
import type { CliIo } from "./io";
import { opt, type ParsedArgs } from "./parse-args";

/** `download image NAME`: fetch, verify and register a published cloud image; Ctrl-C removes the partial file. */
export async function runDownloadVerb(p: ParsedArgs, args: string[], driver: VmDriver, settings: VmSettings, io: CliIo, print: (d: unknown, t: string) => void): Promise<void> {
  if (args.length !== 1) throw new VmInputError("usage: svc-vm download image <name> [--url URL --sha256 HEX] [--force] (see svc-vm download --help)");
  const abort = new AbortController();
  const stop = () => abort.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    const r = await downloadImage({
      imagesDir: settings.imagesDir,
      name: args[0]!,
      url: opt(p, "url"),
      sha256: opt(p, "sha256"),
      checksumUrl: opt(p, "checksum-url"),
      force: p.flags.has("force"),
      signal: abort.signal,
      onProgress: (l) => io.err(l),
      vmsUsing: async (image) => (await driver.list()).filter((v) => v.image === image).map((v) => v.name),
    });
    const text = r.downloaded
      ? `registered image ${r.name} (os ${r.os}, user ${r.ssh_user}) at ${r.path}; ${r.checksum!.algorithm.toUpperCase()} ${r.checksum!.hex} verified`
      : `image ${r.name} already exists at ${r.path}; kept (--force downloads it again)`;
    print(r, text);
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}
