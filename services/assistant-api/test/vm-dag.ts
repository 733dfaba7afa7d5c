/** The head of dags/vm_deployment.yaml as the assistant tests stand it in: its id, tags and the action and vm_name params. */
export function vmDagHead(description: string): string {
  return `dag_id: vm_deployment
description: ${description}
tags: [vm]
params:
  action: {type: string, enum: [create, delete], default: create, description: create or delete}
  vm_name: {type: string, pattern: "^[a-z][a-z0-9-]{0,62}$", description: name of the VM}
`;
}

/** A vm_deployment like dags/vm_deployment.yaml: vm_create with image, memory, vCPUs, disk and host params and these defaults. */
export function vmCreateDag(defaults: { image: string; memoryMb: number; cpus: number }): string {
  return `${vmDagHead("Create or delete a virtual machine on a hypervisor host.")}  image: {type: string, default: ${defaults.image}, description: VM image}
  memory_mb: {type: integer, default: ${defaults.memoryMb}, description: memory in MiB}
  cpus: {type: integer, default: ${defaults.cpus}, description: vCPUs}
  disk_gb: {type: integer, default: 10, description: disk size in GB}
  host: {type: string, default: "", description: hypervisor host to pin the VM to}
examples:
  - create a vm called web01
  - delete the vm called web01
tasks:
  - task_id: create_vm
    operator: vm_create
    when: "{{ params.action == 'create' }}"
    args:
      name: "{{ params.vm_name }}"
      image: "{{ params.image }}"
      cpus: "{{ params.cpus }}"
      memory_mb: "{{ params.memory_mb }}"
      disks_gb: ["{{ params.disk_gb }}"]
      host: "{{ params.host or none }}"
`;
}
