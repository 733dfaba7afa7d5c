// The capacity reader's light entry (`@svc/hosts/capacity`): the df, meminfo and nproc commands and
// their parsers, without the inventory's database code.
export { cpuCount, DF_SCRIPT, dfArgv, dfFreeGb, memAvailableMb, pathAndParents } from "./capacity-text";
