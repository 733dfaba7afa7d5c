import { sql, type Kysely } from "kysely";

/**
 * Two more cloud providers for a host: `gcp` (a Compute Engine zone of a project: project, zone,
 * network, subnet, endpoint and the credentials mode, `secrets-file` or `adc`) and `azure` (a
 * resource group in a location of a subscription: subscription, location, resource_group, vnet,
 * subnet, endpoint, authority_host). Credentials stay out of the settings, the keys of these two
 * providers' secrets included.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table hypervisor_host
    drop constraint hypervisor_host_provider_check,
    add constraint hypervisor_host_provider_check check (provider in ('libvirt', 'aws', 'hetzner', 'gcp', 'azure')),
    drop constraint hypervisor_host_provider_settings,
    add constraint hypervisor_host_provider_settings check (
      case provider
        when 'libvirt' then provider_settings = '{}'
        when 'aws' then provider_settings ? 'region' and provider_settings ? 'credentials'
        when 'hetzner' then provider_settings ? 'location'
        when 'gcp' then provider_settings ?& array['project', 'zone', 'credentials']
        when 'azure' then provider_settings ?& array['subscription', 'location', 'resource_group']
      end
    ),
    drop constraint hypervisor_host_no_credentials,
    add constraint hypervisor_host_no_credentials check (
      not provider_settings ?| array['access_key_id', 'secret_access_key', 'session_token', 'token', 'password', 'secret',
        'private_key', 'service_account_json', 'client_secret']
    )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from hypervisor_host where provider in ('gcp', 'azure')`.execute(db);
  await sql`alter table hypervisor_host
    drop constraint hypervisor_host_no_credentials,
    add constraint hypervisor_host_no_credentials check (
      not provider_settings ?| array['access_key_id', 'secret_access_key', 'session_token', 'token', 'password', 'secret']
    ),
    drop constraint hypervisor_host_provider_settings,
    add constraint hypervisor_host_provider_settings check (
      case provider
        when 'libvirt' then provider_settings = '{}'
        when 'aws' then provider_settings ? 'region' and provider_settings ? 'credentials'
        when 'hetzner' then provider_settings ? 'location'
      end
    ),
    drop constraint hypervisor_host_provider_check,
    add constraint hypervisor_host_provider_check check (provider in ('libvirt', 'aws', 'hetzner'))`.execute(db);
}
