import { NonRetryableError, UnavailableError } from "@svc/errors";

/** The server answered with an error, or the transfer broke off. */
export class DownloadError extends UnavailableError {}

/** The downloaded bytes are not what the publisher's checksum says: the file was removed. */
export class ChecksumMismatchError extends NonRetryableError {
  constructor(
    readonly url: string,
    readonly algorithm: string,
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`${algorithm.toUpperCase()} mismatch for ${url}: expected ${expected}, got ${actual}; the download was removed`);
  }
}
