// @svc/plugins is the svc-plugins command (bin/svc-plugins → src/main.ts) and its OS plugins; no
// other package imports code from it, so its public API is empty. Its tests import its modules by path.
export {};
