/** Operator-facing commands quoted in recommendations; one place so they follow the engine CLI. */
export const commands = {
  taskLogs: (dagId: string, runId: string, taskId: string, tryNumber: number) => `svc-engine tasks logs ${dagId} ${runId} ${taskId} --try ${tryNumber}`,
  clearTask: (dagId: string, runId: string, taskId: string) => `svc-engine tasks clear ${dagId} ${runId} ${taskId} --downstream`,
  trigger: (dagId: string) => `svc-engine dags trigger ${dagId}`,
  unpause: (dagId: string) => `svc-engine dags unpause ${dagId}`,
  gridUrl: (workflowUiUrl: string, dagId: string) => `${workflowUiUrl.replace(/\/+$/, "")}/dags/${dagId}/grid`,
};
