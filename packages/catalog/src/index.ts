// @svc/catalog is the product catalogue (DAG files, playbooks) and its checks; no other package
// imports code from it, so its public API is empty. Its tests import its modules by path.
export {};
