// @svc/cli is the svc-engine command (bin/svc-engine → src/main.ts); no other package imports
// code from it, so its public API is empty. Its tests import its modules by path.
export {};
