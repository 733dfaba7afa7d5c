import { startCli } from "@svc/vm";
import { runVmHostsCli } from "./vm-hosts";

// Entry point of svc-vm with -C/--host or --all-hosts (packages/vm/bin/svc-vm hands over here).
startCli(runVmHostsCli, process.env);
