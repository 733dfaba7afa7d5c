// @svc/hosts/cli: the svc-hosts command line (probes hosts, and cloud providers' identity calls).
export { runCli } from "./cli/run";
