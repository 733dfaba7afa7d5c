import { sql, type Kysely } from "kysely";

/**
 * A host has a provider: `libvirt` (every host before this migration, reached over SSH as before),
 * or a cloud region (`aws`, `hetzner`) whose VMs are made through the provider's API. The
 * provider's settings (region, zone, subnet, security group, endpoint, credentials mode for AWS;
 * location, network, endpoint for Hetzner) are kept in `provider_settings`. Credentials never are:
 * only the mode (`secrets-file` or `default-chain`), enforced here too. A cloud host's `address`
 * and `port` are those of its API, so two cloud hosts may share them: the uniqueness of
 * address and port holds for libvirt hosts only.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table hypervisor_host
    add column provider text not null default 'libvirt' check (provider in ('libvirt', 'aws', 'hetzner')),
    add column provider_settings jsonb not null default '{}' check (jsonb_typeof(provider_settings) = 'object'),
    add constraint hypervisor_host_provider_settings check (
      case provider
        when 'libvirt' then provider_settings = '{}'
        when 'aws' then provider_settings ? 'region' and provider_settings ? 'credentials'
        when 'hetzner' then provider_settings ? 'location'
      end
    ),
    add constraint hypervisor_host_no_credentials check (
      not provider_settings ?| array['access_key_id', 'secret_access_key', 'session_token', 'token', 'password', 'secret']
    ),
    drop constraint hypervisor_host_address_port_key`.execute(db);
  await sql`create unique index hypervisor_host_address_port_key on hypervisor_host (address, port) where provider = 'libvirt'`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from hypervisor_host where provider <> 'libvirt'`.execute(db);
  await sql`drop index hypervisor_host_address_port_key`.execute(db);
  await sql`alter table hypervisor_host
    drop constraint hypervisor_host_no_credentials,
    drop constraint hypervisor_host_provider_settings,
    drop column provider_settings,
    drop column provider,
    add constraint hypervisor_host_address_port_key unique (address, port)`.execute(db);
}
