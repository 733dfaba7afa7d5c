export { defaultOperators } from "./all";
export { hostOperatorSettings, sshReuseEnv } from "./host";
