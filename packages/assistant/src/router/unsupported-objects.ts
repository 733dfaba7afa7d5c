/**
 * Things asked for that the catalogue does not deploy: products of its own kind that it lacks
 * ("deploy kafka", "a kubeadm cluster"), and objects inside a service rather than the service
 * ("add a DNS record in FreeIPA", "create a user in IdM").
 */
export const FOREIGN_PRODUCTS: ReadonlySet<string> = new Set([
  "kafka",
  "zookeeper",
  "kubeadm",
  "k3s",
  "k0s",
  "rke",
  "rke2",
  "rancher",
  "microk8s",
  "minikube",
  "eks",
  "gke",
  "aks",
  "nomad",
  "consul",
  "vault",
  "keycloak",
  "jenkins",
  "gitlab",
  "gitea",
  "nexus",
  "artifactory",
  "postgres",
  "postgresql",
  "mysql",
  "mariadb",
  "mongodb",
  "mongo",
  "redis",
  "rabbitmq",
  "elasticsearch",
  "opensearch",
  "kibana",
  "logstash",
  "prometheus",
  "grafana",
  "loki",
  "nginx",
  "apache",
  "haproxy",
  "traefik",
  "wordpress",
  "nextcloud",
  "minio",
  "ceph",
  "glusterfs",
  "nfs",
  "samba",
  "openstack",
  "proxmox",
  "vmware",
  "vsphere",
  "esxi",
  "docker-swarm",
  "pfsense",
  "opnsense",
  "openwrt",
  "mikrotik",
  "fortigate",
  "awx",
  "satellite",
  "foreman",
  "pihole",
  "bind9",
  "unbound",
  "active-directory",
  "sharepoint",
  "splunk",
  "zabbix",
  "nagios",
  "sonarqube",
  "argocd",
  "tekton",
  "istio",
  "openvpn",
  "wireguard",
]);

/** Objects that live inside a deployed service; creating one is an operation the catalogue lacks. */
const INNER_OBJECTS = new Set([
  "record",
  "records",
  "user",
  "users",
  "account",
  "accounts",
  "group",
  "groups",
  "zone",
  "zones",
  "entry",
  "entries",
  "rule",
  "rules",
  "member",
  "members",
  "policy",
  "policies",
  "repository",
  "repositories",
  "repo",
  "repos",
  "namespace",
  "namespaces",
  "project",
  "projects",
  "pod",
  "pods",
  "operator",
  "operators",
  "robot",
  "webhook",
  "node",
  "nodes",
  "worker",
  "workers",
  "replica",
  "replicas",
  "principal",
  "keytab",
  "cname",
]);
const ADD_VERBS = new Set(["add", "create", "make", "register", "new", "insert", "put", "anade", "agrega", "crea", "fuge", "hinzufugen", "ajoute", "ajouter", "cree"]);
const INTO = new Set(["in", "into", "to", "on", "inside", "within", "en", "a", "zu", "im", "in", "dans", "sur"]);
const SERVICES = new Set([
  "freeipa",
  "ipa",
  "idm",
  "ldap",
  "kerberos",
  "dns",
  "harbor",
  "quay",
  "registry",
  "openshift",
  "ocp",
  "cluster",
  "router",
  "vyos",
  "ca",
  "step-ca",
  "pki",
]);
const VM_NOUNS = new Set(["vm", "vms", "virtual", "machine", "server", "instance", "box", "guest", "node", "nodes", "host"]);

/** Nouns of a kind of service that a product's name can qualify ("an opnsense router", "keycloak for sso"). */
const KIND_NOUNS = new Set(["router", "routeur", "enrutador", "firewall", "gateway", "sso", "ldap", "idp", "directory", "cluster", "ca", "pki"]);
/** Registries the registry workflow's type question answers ("an artifactory registry" is asked, naming the types offered). */
const REGISTRY_PRODUCTS = new Set(["artifactory", "nexus", "gitlab", "jfrog"]);

/**
 * A foreign product named as the kind of a service the catalogue has a noun for ("set up an
 * opnsense router", "deploy keycloak for sso"): the service asked for is that product, which the
 * catalogue's own nouns do not change. Null when none is, or when the catalogue's product is named too.
 */
export function foreignKindOf(words: readonly string[]): string | null {
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (!FOREIGN_PRODUCTS.has(w) || REGISTRY_PRODUCTS.has(w)) continue;
    if (KIND_NOUNS.has(words[i + 1] ?? "") || (words[i + 1] === "for" && KIND_NOUNS.has(words[i + 2] ?? ""))) return w;
  }
  return null;
}

/** The foreign product asked for, when nothing in the catalogue's own words is asked for too. */
export function foreignProduct(words: readonly string[], hasCatalogueProduct: boolean): string | null {
  if (hasCatalogueProduct) return null;
  const product = words.find((w) => FOREIGN_PRODUCTS.has(w));
  if (!product) return null;
  // "a vm for jenkins", "the nginx vm" are VMs: the product names their purpose.
  const productAt = words.indexOf(product);
  if (words.some((w, i) => VM_NOUNS.has(w) && (i < productAt || i === productAt + 1 || words[productAt - 1] === "for"))) return null;
  return product;
}

/** "add a DNS record for x in freeipa": the inner object asked for, or null. */
export function innerObject(words: readonly string[]): string | null {
  for (let i = 0; i < words.length; i++) {
    if (!ADD_VERBS.has(words[i]!)) continue;
    for (let j = i + 1; j <= i + 5 && j < words.length; j++) {
      const w = words[j]!;
      if (w === ",") break;
      if (!INNER_OBJECTS.has(w)) continue;
      // The object must be placed into something ("in freeipa", "to the registry") or belong to a service ("a freeipa user").
      if (words.slice(j + 1, j + 8).some((x) => INTO.has(x)) || words.slice(Math.max(i + 1, j - 2), j).some((x) => SERVICES.has(x))) return w;
    }
  }
  return null;
}
