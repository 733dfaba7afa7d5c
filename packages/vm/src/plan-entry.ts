// @svc/vm/plan: the words of a cloud VM's plan, without the drivers or their SDKs (the assistant's and orchestrator's plan text),
// and the products' firewall table (the worker's product VMs, the plan, the docs).
export { describeCloudPlan } from "./cloud-plan-text";
export type { CloudPlanRequest, CloudVmPlan } from "./cloud-plan-text";
export { PRODUCTS, PRODUCT_PORTS, REGISTRY_TYPES, firewallText, productFirewall, productPortRows } from "./product-ports";
export type { Product, ProductOptions } from "./product-ports";
export { CIDR as isCidr } from "./firewall";
