// The bytes an inline CredentialProviderConfig (spec credentialProvider.config)
// becomes on the node. Every provider writes it with this one function, so
// credprov knows what the kubelet read and can predict the hash it publishes
// (kubelet_credential_provider_config_info).
import { stringify } from 'yaml';

export function providerConfigText(config: Record<string, unknown>): string {
  return stringify(config);
}
