/** A VM a host-scoped try names, and the arg that names it (for the log). */
export interface NamedVm {
  name: string;
  field: string;
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/**
 * The VMs a try's args name, most telling first: `name` for the vm_* operators; for
 * ansible_playbook its `vm`, else its targets' names, else (a play on the host itself) the
 * `vm_name` extra var the catalogue's host plays take. ssh and host_check name none.
 */
export function vmsNamedBy(operator: string, args: Record<string, unknown>): NamedVm[] {
  if (operator === "ansible_playbook") {
    const vm = str(args.vm);
    if (vm) return [{ name: vm, field: "vm" }];
    if (Array.isArray(args.hosts)) {
      return args.hosts.flatMap((h: unknown, i) => {
        const name = str((h as { name?: unknown } | null)?.name);
        return name ? [{ name, field: `hosts[${i}].name` }] : [];
      });
    }
    const extra = args.extra_vars as Record<string, unknown> | undefined;
    const onHost = str(args.on_host === true ? extra?.vm_name : undefined);
    return onHost ? [{ name: onHost, field: "extra_vars.vm_name" }] : [];
  }
  if (operator === "ssh" || operator === "host_check") return [];
  // vm_create, vm_delete, vm_info, vm_wait_ssh and any other VM operator: its `name`, else `vm`.
  const name = str(args.name) ?? str(args.vm);
  return name ? [{ name, field: str(args.name) ? "name" : "vm" }] : [];
}
