import { AlreadyExistsError, NonRetryableError, NotFoundError, UnavailableError } from "@svc/errors";

/** No VM of that name. */
export class VmNotFoundError extends NotFoundError {
  constructor(readonly vmName: string) {
    super("not_found", `VM '${vmName}' does not exist`);
  }
}

/** The image is not in the images directory; the message lists the ones that are. */
export class ImageNotFoundError extends NonRetryableError {
  constructor(
    readonly image: string,
    readonly available: string[],
    imagesDir: string,
  ) {
    super(`image '${image}' not found in ${imagesDir}; available: ${available.length ? available.join(", ") : "(none)"}`);
  }
}

/** A VM of that name exists with a different spec. */
export class VmExistsError extends AlreadyExistsError {
  constructor(
    readonly vmName: string,
    detail: string,
  ) {
    super(`VM '${vmName}' already exists with a different spec (${detail}); delete it first or pick another name`);
  }
}

/** Bad user input (name, parameter): retrying cannot help. */
export class VmInputError extends NonRetryableError {}

/** The hypervisor service is down or unreachable. */
export class LibvirtUnavailableError extends UnavailableError {}

/** The caller lacks the rights for root-owned VMs. */
export class VmPermissionError extends NonRetryableError {}
