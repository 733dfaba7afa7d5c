import { ChecksumMismatchError, DownloadError } from "../download/errors";
import { ImageNotFoundError, LibvirtUnavailableError, VmExistsError, VmForeignError, VmInputError, VmNotFoundError, VmPermissionError } from "../errors";

/** Exit codes of svc-vm; operators map them back to retryable or not. */
export const EXIT = { ok: 0, error: 1, usage: 2, notFound: 3, exists: 4, unavailable: 5, permission: 6, foreign: 7 } as const;

/** Exit code and stable error code for a thrown error. */
export function classify(e: unknown): { exit: number; code: string } {
  if (e instanceof ImageNotFoundError) return { exit: EXIT.usage, code: "image_not_found" };
  if (e instanceof VmForeignError) return { exit: EXIT.foreign, code: "vm_foreign" };
  if (e instanceof VmInputError) return { exit: EXIT.usage, code: "invalid_input" };
  if (e instanceof VmNotFoundError) return { exit: EXIT.notFound, code: "vm_not_found" };
  if (e instanceof VmExistsError) return { exit: EXIT.exists, code: "vm_exists" };
  if (e instanceof LibvirtUnavailableError) return { exit: EXIT.unavailable, code: "hypervisor_unavailable" };
  if (e instanceof VmPermissionError) return { exit: EXIT.permission, code: "permission_denied" };
  if (e instanceof ChecksumMismatchError) return { exit: EXIT.error, code: "checksum_mismatch" };
  if (e instanceof DownloadError) return { exit: EXIT.error, code: "download_failed" };
  return { exit: EXIT.error, code: "error" };
}
