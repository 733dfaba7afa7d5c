/** Terms (space-separated word sequences) that point at one DAG, with how strongly. */
export interface KeywordGroup {
  weight: number;
  terms: string[];
}

/** Built-in routing knowledge for one DAG of the catalogue. */
export interface DomainKnowledge {
  dag_id: string;
  groups: KeywordGroup[];
  /**
   * A generic DAG (plain VMs) whose nouns also carry the specific ones
   * ("a freeipa vm"): its score is halved when another DAG has a strong hit.
   */
  generic?: boolean;
  /** Gains CHECK_MODE_BONUS when the request asks to check rather than to change. */
  checks?: boolean;
}

export const STRONG = 3;
export const CHECK_MODE_BONUS = 2;

/** Keyword groups per domain; weight 3 names the product, 2 its field, 1 a hint. */
export const DOMAIN_KNOWLEDGE: DomainKnowledge[] = [
  {
    dag_id: "identity_deployment",
    groups: [
      {
        weight: 3,
        terms: [
          "freeipa",
          "ipa",
          "idm",
          "identity management",
          "identity server",
          "identity provider",
          "red hat identity",
          "kerberos",
          "ldap",
          "directory server",
          "single sign on",
          "sso",
          "gestion des identites",
          "gestion de identidades",
          "identitatsverwaltung",
          "servidor de identidad",
          "serveur d'identite",
          "identitatsserver",
          "verzeichnisdienst",
        ],
      },
      { weight: 2, terms: ["identity", "identidad", "identite", "identitat", "dns", "dns server", "authentication", "domain controller", "realm", "user management"] },
      { weight: 1, terms: ["user", "directory", "auth", "login", "nameserver", "forwarder"] },
    ],
  },
  {
    dag_id: "ca_deployment",
    groups: [
      {
        weight: 3,
        terms: [
          "step ca",
          "stepca",
          "smallstep",
          "certificate authority",
          "ca",
          "pki",
          "acme",
          "x509",
          "autorite de certification",
          "autoridad de certificacion",
          "autoridad certificadora",
          "zertifizierungsstelle",
        ],
      },
      { weight: 2, terms: ["certificate", "cert", "tls", "ssl", "issue certificate", "sign certificate", "issue cert", "sign cert"] },
      { weight: 1, terms: ["sign", "issue", "https", "root", "intermediate"] },
    ],
  },
  {
    dag_id: "router_deployment",
    groups: [
      { weight: 3, terms: ["vyos", "router", "routing", "gateway", "virtual router", "routeur", "enrutador"] },
      { weight: 2, terms: ["route", "host route", "lab network", "vlan", "subnet", "firewall", "nat", "talk to each other"] },
      { weight: 1, terms: ["network", "bgp", "ospf", "interface", "traffic"] },
    ],
  },
  {
    dag_id: "registry_deployment",
    groups: [
      { weight: 3, terms: ["registry", "harbor", "quay", "mirror registry", "container registry", "image registry", "docker registry", "registro", "registre"] },
      { weight: 2, terms: ["container image", "mirror", "air gapped", "disconnected", "oci"] },
      { weight: 1, terms: ["image", "docker", "pull", "push", "store", "podman"] },
    ],
  },
  {
    dag_id: "cluster_initial_deployment",
    groups: [
      { weight: 3, terms: ["openshift", "ocp", "okd", "sno", "agent based", "container platform", "openshift cluster"] },
      { weight: 2, terms: ["cluster", "kubernetes", "k8s", "single node", "three node", "compact cluster", "control plane"] },
      { weight: 1, terms: ["node", "compact", "master", "worker", "installer"] },
    ],
  },
  {
    dag_id: "infrastructure_health_check",
    checks: true,
    groups: [
      { weight: 3, terms: ["health", "healthy", "healthcheck", "health check", "diagnostic", "diagnose", "sanity check", "status report", "health report"] },
      {
        weight: 2,
        terms: [
          "check",
          "verify",
          "validate",
          "validation",
          "status",
          "estado",
          "zustand",
          "etat",
          "salud",
          "gesundheit",
          "sante",
          "audit",
          "monitor",
          "inspect",
          "expiring",
          "expire",
          "expiry",
          "working",
          "ok",
          "okay",
          "fine",
          "alright",
        ],
      },
      { weight: 1, terms: ["infrastructure", "infra", "report", "environment", "lab", "everything", "hypervisor", "host"] },
    ],
  },
  {
    dag_id: "vm_deployment",
    generic: true,
    groups: [
      {
        weight: 3,
        terms: [
          "virtual machine",
          "virtual server",
          "maquina virtual",
          "maquinas virtuales",
          "machine virtuelle",
          "machines virtuelles",
          "virtuelle maschine",
          "virtuelle maschinen",
          "virtuellen maschine",
        ],
      },
      { weight: 2, terms: ["vm", "instance", "guest", "box", "machine", "new server"] },
      { weight: 1, terms: ["server", "cpu", "vcpu", "core", "memory", "ram", "disk", "rhel", "centos", "fedora", "ubuntu", "debian", "rocky", "almalinux"] },
    ],
  },
];

/** Knowledge for a DAG the router has no built-in words for: its tags, which are its author's keywords. */
export function knowledgeFromTags(dagId: string, tags: readonly string[]): DomainKnowledge {
  return { dag_id: dagId, groups: [{ weight: STRONG, terms: tags.map((t) => t.replace(/[-_]/g, " ")) }] };
}

/** Verbs that ask for a change; their presence turns off the check-mode bonus. */
export const CREATE_TERMS = [
  "create",
  "deploy",
  "install",
  "provision",
  "spin up",
  "set up",
  "setup",
  "stand up",
  "bring up",
  "launch",
  "build",
  "make",
  "add",
  "instantiate",
  "roll out",
  "configure",
  "new",
];

/** Verbs that ask to delete what a DAG deployed. */
export const DELETE_TERMS = [
  "delete",
  "remove",
  "destroy",
  "tear down",
  "teardown",
  "decommission",
  "get rid of",
  "uninstall",
  "deprovision",
  "take down",
  "clean up",
  "drop",
  "wipe out",
  "retire",
  "dismantle",
  "scrap",
];

/** Changes to, or ways into, something that already exists: no catalogue workflow does them. */
export const CHANGE_TERMS = [
  "upgrade",
  "update",
  "patch",
  "scale",
  "resize",
  "migrate",
  "backup",
  "back up",
  "restore",
  "snapshot",
  "clone",
  "rename",
  "move",
  "rotate",
  "renew",
  "reset",
  "login",
  "log in",
  "ssh into",
  "connect to",
  "open a console",
];

/**
 * Operations no catalogue workflow performs: a request built on one of these (and no create/delete
 * verb) must not be routed to a deploy workflow that merely shares its noun ("upgrade openshift").
 */
export const UNSUPPORTED_TERMS = ["list", "show", "display", "restart", "reboot", "stop", "pause", "resume", ...CHANGE_TERMS];

/** Extra words added to the BM25 query so that short forms reach the DAG descriptions. */
export const SYNONYMS: Record<string, string[]> = {
  idm: ["freeipa", "identity"],
  ipa: ["freeipa"],
  ldap: ["identity"],
  kerberos: ["identity"],
  sso: ["identity"],
  ca: ["certificate", "authority"],
  pki: ["certificate"],
  tls: ["certificate"],
  ssl: ["certificate", "tls"],
  cert: ["certificate"],
  acme: ["certificate"],
  stepca: ["step", "ca"],
  smallstep: ["step", "ca"],
  ocp: ["openshift"],
  okd: ["openshift"],
  sno: ["openshift", "single", "node"],
  k8s: ["kubernetes", "cluster"],
  kubernetes: ["cluster"],
  vyos: ["router"],
  gateway: ["router"],
  routing: ["router"],
  vlan: ["network"],
  quay: ["registry", "mirror"],
  harbor: ["registry"],
  docker: ["registry", "container"],
  healthy: ["health"],
  healthcheck: ["health", "check"],
  diagnostic: ["health"],
  diagnose: ["health"],
};

/** Words that never name a VM or a cluster. */
export const FUNCTION_WORDS = [
  "a",
  "an",
  "the",
  "with",
  "from",
  "for",
  "on",
  "in",
  "of",
  "and",
  "or",
  "to",
  "please",
  "now",
  "using",
  "that",
  "which",
  "is",
  "be",
  "called",
  "named",
  "name",
  "me",
  "my",
  "our",
  "it",
  "this",
  "at",
  "as",
  "by",
  "plus",
  "running",
  "having",
  "so",
  "then",
  "also",
  "again",
  "here",
  "there",
  "vm",
  "vms",
  "server",
  "instance",
  "box",
  "guest",
  "machine",
  "image",
  "ok",
  "okay",
  "too",
  "asap",
  "today",
  "quickly",
  "thanks",
  "thank",
  "running",
  "based",
  "via",
  "into",
  "onto",
  "up",
  "all",
  "every",
  "each",
  "everything",
  "them",
  "these",
  "those",
  "any",
  "some",
  "one",
  "another",
  "other",
];
