import { runCli } from "./run";
import { startCli } from "./start";

// Entry point of the svc-vm bin: real stdio, real environment.
startCli(runCli, process.env);
