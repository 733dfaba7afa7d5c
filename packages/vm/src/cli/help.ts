import { CATALOG } from "../download/catalog";

/** Help texts, one per verb; `svc-vm <verb> --help` prints the verb's. */
export const HELP: Record<string, string> = {
  main: `Usage: svc-vm <command> [options]

Manage VMs on this host (libvirt, or kcli when it is installed).

Commands:
  list vm                      List VMs
  list image                   List images in the images directory, with their OS
  download image <name>        Download a published cloud image, verify it, register it
  info vm <name>               VM details: state, SSH endpoint, memory, cpus, image, disks
  create vm <name> -i <image>  Create a VM from an image (or from an ISO: -P iso=/path)
  delete vm <name> -y          Delete a VM svc created and its disks
  ssh vm <name> -- <cmd...>    Run a command in the VM over SSH (host key pinned)

Options (every command):
  -o, --output table|json      Output format (default table)
  --images-dir DIR             Images directory (SVC_VM_IMAGES_DIR, default /var/lib/svc/images)
  --disks-dir DIR              Per-VM disks directory (SVC_VM_DISKS_DIR, default /var/lib/svc/vms)
  --uri URI                    libvirt URI (SVC_LIBVIRT_URI, default qemu:///system)
  --driver auto|libvirt|kcli   Backend (SVC_VM_DRIVER, default auto: kcli when on PATH)
  -h, --help                   Show help

Several hosts (the inventory of svc-hosts, in the database of DATABASE_URL):
  -C, --host HOST              Run the command on HOST of the inventory, with its libvirt URI and
                               directories (svc-vm there over SSH with its pinned key; 'local' here)
  --all-hosts                  list vm, list image: every host, merged; info vm, delete vm: on
                               whichever host has the VM (refused when several have it: use -C)
  Output then has a HOST column (-o json: a "host" field). A host that does not answer is named on
  stderr (list: under the VMs, exit 0; info, delete: exit 5); the other hosts' answers are still
  shown. Without -C or --all-hosts svc-vm acts on this host only, whatever the inventory holds
  (workers run it so). A cloud host (svc-hosts add --provider aws|hetzner|gcp|azure) is acted on
  through its provider's API from here, with the credentials of SVC_SECRETS_FILE (or the SDK's
  default chain); see docs/clouds.md.

VMs on qemu:///system are managed as root (non-root users: sudo svc-vm ...). With no --ssh-key,
the first of ~/.ssh/id_ed25519.pub, id_ecdsa.pub, id_rsa.pub of the invoking user is injected.
Exit codes: 0 ok, 1 error, 2 usage or invalid input, 3 not found, 4 exists with another spec
(or of another run), 5 hypervisor unavailable, 6 permission denied, 7 not a VM svc created.`,
  list: `Usage: svc-vm list vm [-o json] [--all] [-C HOST | --all-hosts]
       svc-vm list vm --orphans [-o json]
       svc-vm list image [-o json] [-C HOST | --all-hosts]

List VMs (name, state, image, cpus, memory, SSH endpoint) or the images VMs can be created from
(name, os, boot, path, description). An image's os (debian12, centos9stream, ...) is read from the
image.json beside its disk; it is null (- in the table) when the image does not say.
  -C, --host HOST   List on HOST of the inventory (svc-hosts list)
  --all-hosts       List on every host of the inventory, with a HOST column; -o json:
                    {"vms"|"images": [rows with "host", "provider", "region"], "unavailable":
                    [{"host", "provider", "region", "error"}]}. A host that does not answer or whose
                    provider refuses the keys is listed as unavailable with why, the others stand:
                    exit 0 (unless no host answered)
  --all             On a cloud host: every instance, not only those labelled managed-by=svc
  --orphans         Instances labelled managed-by=svc on every cloud host that no run of svc holds
                    (no svc-run-id label, or its run is gone), with their age and hourly price`,
  download: `Usage: svc-vm download image <name> [--force] [-o json]
       svc-vm download image <name> --url URL (--sha256 HEX | --checksum-url URL) [--force]

Download a published cloud image into the images directory, verify its checksum and register it
as <images-dir>/<name>/disk.qcow2 with an image.json (os, boot disk, cloud-init key injection,
the image's cloud user), ready for: svc-vm create vm NAME -i <name>.
${CATALOG.map((c) => `  ${c.name.padEnd(16)} ${c.description.padEnd(42)} user ${c.sshUser}`).join("\n")}
The publishers only keep rolling "latest" builds: the checksum comes from the publisher's checksum
file next to the image (SHA-256; SHA-512 for Debian), fetched over HTTPS first. A mismatch removes
the download and fails (exit 1), naming the expected and the actual digest. Progress goes to stderr.
An image that is already registered is kept (exit 0) unless --force; --force refuses while VMs
are created on the image. Ctrl-C removes the partial file.
  --url URL            Fetch the image from here instead (a mirror, or a host without internet
                       serving a copy); needs --sha256 or --checksum-url
  --sha256 HEX         The image's SHA-256 (64 hex digits): verify against it instead of the
                       publisher's checksum file
  --checksum-url URL   A checksum file (sha256sum/sha512sum or BSD "SHA256 (file) = hex" lines)
  --force              Download again and replace the registered image
Needs write access to the images directory (qemu:///system: sudo svc-vm ...). With the kcli
driver, images kcli manages are downloaded with kcli download image.`,
  info: `Usage: svc-vm info vm <name> [-o json] [-C HOST | --all-hosts]

Show one VM: state, ip, ssh_host and ssh_port, forwards, memory_mb, cpus, image, iso, disks, nets, macs.
Exit code 3 when the VM does not exist.
  -C, --host HOST   Look on HOST of the inventory only
  --all-hosts       Look on every host of the inventory and show the VM with its host; exit 4 when
                    several hosts have a VM of that name, 5 when it is on none that answered and
                    some did not answer`,
  create: `Usage: svc-vm create vm <name> -i <image> [-P memory=MB] [-P numcpus=N] [-P disks=[GB,...]]
                      [-P nets=[NET,...]] [-P macs=[MAC,...]] [-P iso=/path.iso]
                      [--ssh-key FILE] [--wait [--wait-timeout SECONDS]] [-o json]
       svc-vm create vm <name> -P iso=/path.iso [-P disks=[GB,...]] [...]   (an ISO on empty disks)

Create a VM: a copy-on-write overlay on the image, the SSH public key injected, started.
  -i, --image IMAGE        Image name (see: svc-vm list image)
  -P iso=/path.iso         A bootable ISO on this host (absolute path), attached as a CD-ROM. Without
                           -i the disks are created empty and the VM boots from disk, then the ISO;
                           no key is injected (the ISO decides who may log in)
  -P memory=MB             Memory in MiB (default 512)
  -P numcpus=N             vCPUs (default 1)
  -P disks=[GB,...]        Disk sizes; the first is the root disk (default: the image's size;
                           with an ISO and no image, empty disks of these sizes)
  -P nets=[NET,...]        user = user-mode network, SSH forwarded to a 127.0.0.1 port (default);
                           any other name is a libvirt network (e.g. default)
  -P macs=[MAC,...]        One MAC address per network, lower-case and unicast
                           (e.g. macs=[52:54:00:12:34:56]); default: picked by the hypervisor
  -P forwards=[PROTO/PORT,...]  Guest ports forwarded to 127.0.0.1 ports picked at create (nets=[user];
                           tcp and udp of one port share a number), e.g. forwards=[tcp/53,udp/53];
                           info vm lists them as forwards: [{proto, guest_port, host_address, host_port}]
  -P outbound=true         Let the guest connect out of its user-mode NIC (qemu restrict=off; a router's
                           uplink: the host's 127.0.0.1 is 10.0.2.2, its resolver 10.0.2.3); default false
  --ssh-key FILE           Public key to inject (SVC_VM_SSH_PUBKEY, default ~/.ssh/id_*.pub)
  --virt-type auto|kvm|qemu  Domain type (SVC_VM_VIRT_TYPE; auto = kvm when usable, else TCG)
  --wait                   Wait until SSH answers (timeout --wait-timeout, default 300 s), then pin the
                           VM's host keys in its known_hosts, so svc-vm ssh vm NAME trusts it at once
  --owner-dag D --owner-run R --owner-task T
                           Record the creating task in the domain's svc metadata (the workflows do)
  --adopt-same-dag         With --owner-*: a VM recorded for another run of the same DAG, with the
                           same spec, is adopted (output adopted: true) instead of refused
Creating a VM that exists with the same spec (image, iso, memory, cpus, disks, nets, macs, forwards, outbound) succeeds
without change; another spec, or a VM recorded for another run, fails (exit 4). A libvirt domain of
that name that svc did not create is refused (exit 7).`,
  delete: `Usage: svc-vm delete vm <name> -y [--force-foreign] [-o json] [-C HOST | --all-hosts]

Delete a VM, its overlay disks and seed ISO (a boot ISO given with -P iso= is left alone).
Without -y it asks on a terminal and refuses otherwise. Deleting a VM that does not exist succeeds with a note.
A libvirt domain svc did not create (no svc metadata) is refused (exit 7) unless --force-foreign is
given; it is then undefined and its storage left in place.
  -C, --host HOST   Delete it on HOST of the inventory
  --all-hosts       Find the host that has it first (as info vm --all-hosts), then delete it there;
                    the question names the host`,
  ssh: `Usage: svc-vm ssh vm <name> [--identity FILE] [--known-hosts FILE] [--trust-on-first-use]
                   [--timeout SECONDS] -- <command> [args...]

Run a command in the VM over SSH, as the image's user, with the private key FILE
(default ~/.ssh/id_ed25519, id_ecdsa, id_rsa). The VM's host key is checked against
--known-hosts (default: the VM's own file next to its disks, removed with the VM, where
create vm --wait and the workflows pin the keys of a new VM); an unknown key fails unless
--trust-on-first-use pins it; a changed key always fails.
The exit code is the command's.`,
};
