import { VmInputError } from "./errors";

const VM_NAME = /^[a-z][a-z0-9-]{0,62}$/;
const IMAGE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const NET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Throw a clear error unless `name` is a valid VM name (`^[a-z][a-z0-9-]{0,62}$`). */
export function assertVmName(name: string): string {
  if (typeof name !== "string" || !VM_NAME.test(name)) {
    throw new VmInputError(`invalid VM name ${JSON.stringify(String(name)).slice(0, 80)}: use 1-63 characters, lowercase letters, digits and '-', starting with a letter`);
  }
  return name;
}

/** Throw unless `name` is a valid image name (letters, digits, '.', '_', '-'). */
export function assertImageName(name: string): string {
  if (typeof name !== "string" || !IMAGE_NAME.test(name) || name.includes("..")) {
    throw new VmInputError(`invalid image name ${JSON.stringify(String(name)).slice(0, 80)}: use letters, digits, '.', '_' and '-'`);
  }
  return name;
}

/** Throw unless `name` is a valid network name. */
export function assertNetName(name: string): string {
  if (typeof name !== "string" || !NET_NAME.test(name)) {
    throw new VmInputError(`invalid network name ${JSON.stringify(String(name)).slice(0, 80)}: use letters, digits, '.', '_' and '-'`);
  }
  return name;
}

/** Whether `name` is a valid VM name. */
export function isVmName(name: string): boolean {
  return VM_NAME.test(name);
}
