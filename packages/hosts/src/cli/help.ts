/** Help texts of svc-hosts, one per verb; `svc-hosts <verb> --help` prints the verb's. */
export const HELP: Record<string, string> = {
  main: `Usage: svc-hosts <command> [options]

The inventory of hypervisor hosts svc creates VMs on (Postgres, DATABASE_URL). The host the stack
runs on is 'local', made from SVC_SSH_* and SVC_LIBVIRT_URI the first time any command runs.

Commands:
  list                 Hosts with state, reachability, capacity and the VMs svc made there
  info NAME            One host: settings, pinned host key, last probe, its VMs
  add NAME --ssh USER@ADDR[:PORT] --key PATH
                       Add a host: pin its host key on first contact, probe it, record it
  add NAME --provider aws --region R | --provider hetzner --location L |
           --provider gcp --project P --zone Z | --provider azure --subscription S --location L --resource-group RG
                       Add a cloud region as a host (its VMs are made through the provider's API)
  drain NAME           No new VMs on the host; running work finishes
  activate NAME        Take new VMs again (also: undrain)
  pin NAME             Pin the host key the host presents now (after a legitimate key change)
  remove NAME          Remove a host; refused while it holds VMs svc made, never 'local'
  place --memory MB --cpus N --disk GB [--image I] [--host NAME]
                       Where a VM would be placed now, and each host's numbers and reasons

Options (every command):
  -o, --output table|json   Output format (default table)
  -h, --help                Show help
Exit codes: 0 ok, 1 error (or no host fits), 2 usage or invalid input, 3 host not found,
4 conflict (exists, holds VMs, 'local'), 5 host unreachable.`,
  list: `Usage: svc-hosts list [--cached] [-o table|json]

Probes every host over SSH (virsh nodeinfo, nodememstats, the domains, df of the disks directory,
the images directory) and shows what it found. MEM/DISK are free, before the host's reserve.
  --cached   Show the last probe's numbers without contacting the hosts`,
  info: `Usage: svc-hosts info NAME [--cached] [-o table|json]

Shows a host's settings, its pinned host key, reserves, labels and a fresh probe (--cached: the last).`,
  add: `Usage: svc-hosts add NAME --ssh USER@ADDR[:PORT] --key PATH [options]

Connects once, pins the host key it presents (or the one given with --host-key), probes libvirt,
and records the host. Nothing is recorded when the host cannot be reached, unless --no-probe.
  --ssh USER@ADDR[:PORT]    SSH login (port 22 by default; [v6]:port for IPv6)
  --key PATH                Private key the workers use for this host (its public key must be in
                            USER's authorized_keys there)
  --libvirt-uri URI         libvirt URI on the host (default qemu:///system)
  --label k=v               A label (repeatable)
  --host-key 'TYPE BASE64'  Pin this key instead of the one presented (from ssh-keyscan run on a
                            trusted path, or the host's /etc/ssh/ssh_host_*_key.pub)
  --images-dir DIR          svc-vm's images directory there (default /var/lib/svc/images)
  --disks-dir DIR           svc-vm's disks directory there (default /var/lib/svc/vms)
  --reserve-memory MB       Memory kept for the host itself (default 512)
  --reserve-disk GB         Disk kept free (default 5)
  --reserve-vcpus N         vCPUs kept for the host (default 0)
  --cpu-ratio R             vCPUs per physical CPU (default 4)
  --no-probe                Record without contacting the host (no key pinned unless
                            --host-key; pin it later with svc-hosts pin NAME)

Cloud hosts: svc-hosts add NAME --provider aws|hetzner|gcp|azure [options] [--key PATH] [--label k=v]
The host is recorded without creating anything; with a cloud driver its credentials are checked
(who they are: svc-hosts info NAME), and bad ones mark it down with the provider's error.
  --provider P              libvirt (the default), aws, hetzner, gcp or azure; equinix is refused:
                            Equinix Metal was shut down on 2026-06-30
  --key PATH                Private key svc reaches the instances with (default SVC_VM_SSH_PRIVKEY)
 aws:
  --region R                The region, e.g. eu-west-1 (required)
  --zone Z                  Availability zone in the region, e.g. eu-west-1a
  --subnet ID               Subnet of the instances (subnet-...), else the default VPC's
  --security-group ID       Security group of the instances (sg-...), else the VPC's default
  --endpoint URL            EC2 (and STS) endpoint of a compatible API or a test server
  --credentials MODE        secrets-file (default: vault_aws_access_key_id,
                            vault_aws_secret_access_key, vault_aws_session_token of
                            SVC_SECRETS_FILE) or default-chain (the SDK's: profile, SSO, role)
 hetzner:
  --location L              fsn1, nbg1, hel1, ash, hil, sin... (required; token: vault_hcloud_token)
  --network NAME            A private network to attach the servers to
  --endpoint URL            API base in place of https://api.hetzner.cloud/v1
 gcp:
  --project P --zone Z      The project id and zone, e.g. europe-west1-b (required)
  --network N --subnet S    VPC network (default: default) and subnetwork of the instances
  --endpoint URL            Compute API base in place of https://compute.googleapis.com
  --credentials MODE        secrets-file (default: vault_gcp_service_account_json) or adc
                            (application default credentials)
 azure:
  --subscription S --location L --resource-group RG   (required; client secret: vault_azure_tenant_id,
                            vault_azure_client_id, vault_azure_client_secret)
  --vnet V --subnet S       Virtual network and subnet of the NICs (default: svc-vnet/default, made)
  --endpoint URL            Resource Manager URL in place of https://management.azure.com
  --authority-host URL      Entra ID authority (sovereign clouds); else AZURE_AUTHORITY_HOST
Credentials are never options nor inventory rows: only where they come from.`,
  drain: `Usage: svc-hosts drain NAME

Placement stops choosing the host (a task that pins it is refused); VMs and runs there go on.`,
  activate: `Usage: svc-hosts activate NAME   (or: svc-hosts undrain NAME)

The host takes new VMs again.`,
  pin: `Usage: svc-hosts pin NAME [--host-key 'TYPE BASE64']

Replaces the host's pinned key with the one it presents now (trust on this use), or the one given.
Check the new key out of band first: this is what stands between svc and a machine in the middle.`,
  remove: `Usage: svc-hosts remove NAME [--force]

Probes the host and removes it from the inventory when it holds no VM svc made (counted from the
svc metadata of its libvirt domains). 'local' cannot be removed. When the host cannot be probed,
svc cannot tell what it holds: --force removes it anyway (its VMs, if any, are not touched).`,
  place: `Usage: svc-hosts place --memory MB --cpus N --disk GB [--disk GB...] [--image I] [--host NAME]
                        [--weigher spread|pack] [-o table|json]

Probes every host and shows where a VM would go: hosts that are up, not draining, have the image
and the memory, disk and vCPUs after their reserve; then the most free (spread, the default) or
the fullest that fits (pack). --host pins the host. Exit 1 when no host fits.`,
};
