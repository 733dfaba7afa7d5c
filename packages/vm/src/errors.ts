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

/** A VM of that name exists with a different spec, or was made by another run. */
export class VmExistsError extends AlreadyExistsError {
  constructor(
    readonly vmName: string,
    detail: string,
    why: "spec" | "owner" = "spec",
  ) {
    super(`VM '${vmName}' already exists ${why === "spec" ? "with a different spec" : "and belongs to another run"} (${detail}); delete it first or pick another name`);
  }
}

/** Bad user input (name, parameter): retrying cannot help. */
export class VmInputError extends NonRetryableError {}

/** The hypervisor service is down or unreachable. */
export class LibvirtUnavailableError extends UnavailableError {}

/** The caller lacks the rights for root-owned VMs. */
export class VmPermissionError extends NonRetryableError {}

/** The libvirt domain of that name was not created by svc: svc neither adopts nor deletes it by default. */
export class VmForeignError extends NonRetryableError {
  constructor(
    readonly vmName: string,
    action: "create" | "delete",
  ) {
    super(
      action === "delete"
        ? `refusing to delete '${vmName}': its libvirt domain was not created by svc (no svc metadata); pass --force-foreign to delete it anyway`
        : `cannot create VM '${vmName}': a libvirt domain of that name exists and was not created by svc (no svc metadata); pick another name`,
    );
  }
}
