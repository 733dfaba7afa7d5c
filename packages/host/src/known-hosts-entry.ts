// Light entry (`@svc/host/known-hosts`): reading and checking known_hosts lines, without ssh2 or the executors.
export { parseKnownHosts, verifyHostKey, hostKeyName } from "./known-hosts";
