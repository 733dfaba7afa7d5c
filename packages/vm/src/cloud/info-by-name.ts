import { VmNotFoundError } from "../errors";
import { assertVmName } from "../names";
import type { VmInfo } from "../types";

/** A cloud VM's info by its name: the name checked, the provider's record found (else VmNotFoundError), then described. */
export async function infoByName<R>(name: string, find: (name: string) => Promise<R | undefined>, toInfo: (record: R) => VmInfo | Promise<VmInfo>): Promise<VmInfo> {
  assertVmName(name);
  const record = await find(name);
  if (!record) throw new VmNotFoundError(name);
  return toInfo(record);
}
