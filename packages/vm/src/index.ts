export type { VmInfo, ImageInfo } from "./types";
export { scanHostKeys, waitForHostKeys, pinVmHostKeys } from "./host-keys";
export type { PinResult } from "./host-keys";
export { buildDomainXml, parseDomainXml } from "./libvirt/domain-xml";
export { runCli } from "./cli/run";
export type { CliIo } from "./cli/run";
export { EXIT as VM_CLI_EXIT } from "./cli/exit-codes";
