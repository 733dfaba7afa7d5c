import { startCli } from "@svc/vm";
import { runCli } from "./run";

// Entry point of the svc-hosts bin: real stdio, real environment.
startCli(runCli, process.env);
