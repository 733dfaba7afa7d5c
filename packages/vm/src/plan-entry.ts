// @svc/vm/plan: the words of a cloud VM's plan, without the drivers or their SDKs (the assistant's and orchestrator's plan text).
export { describeCloudPlan } from "./cloud-plan-text";
export type { CloudPlanRequest, CloudVmPlan } from "./cloud-plan-text";
