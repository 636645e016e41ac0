// A ServiceAccount deleted and recreated under the same name (a new UID; k/k
// #132802, #132803, gate TokenRequestServiceAccountUIDValidation), or given
// another annotation value under the same name, as the kubelet's credential
// paths see it (k8s.io/kubernetes v1.37.1; the same in v1.34.5–v1.36.5):
// - The kubelet GETs the SA from the API server for every lookup
//   (kubelet.go:790-799, no informer), so it sees the new UID and the new
//   annotations at once.
// - Credential cache (plugin.go 453-495, 809-820): the SA part of every key is
//   namespace, name, UID and the annotations passed to the plugin; a new UID
//   or a changed value of a passed annotation misses the old entries and
//   execs the plugin, with the new values. ./service-account-token.ts
//   predicts it as it stands: give the pod the recreated SA.
// - Token: TokenRequest carries the SA's UID (plugin.go:341-355); the token
//   manager's cache is keyed by it from 1.34 (version table
//   tokenCacheKeyedByServiceAccountUid), so a pod asking again gets a token of
//   the new SA; on 1.33 it gets the old token until 80% of its life, which the
//   API server no longer accepts (the UID it names is not the SA's any more).
// - KEP-2535 (image_pull_manager.go, ./ensure-secret-pulled.ts): a record
//   names the SA by namespace, name and UID, never by annotation. A recreated
//   SA is not the recorded one: IfNotPresent pulls again (and the record gains
//   the new UID), Never fails with ErrImageNeverPull. A changed annotation
//   under the same UID still matches: the image is used without a pull, even
//   if the plugin's answer for the new annotation (a new role) would be
//   refused by the registry. The plugin still runs (the lookup gives the
//   pod's SA coordinates), but whether its credentials work is never asked.
import type { ServiceAccountState } from './service-account-token.ts';
import type { KubeBehaviour } from '../versions/table.ts';

/** The same SA recreated: same name, a new UID, the annotations it is created with. */
export function recreated(sa: ServiceAccountState, newUid: string, annotations = sa.annotations): ServiceAccountState {
  if (newUid === sa.uid) throw new Error(`a recreated service account gets a new UID, not ${newUid}`);
  return { ...sa, uid: newUid, annotations: { ...annotations } };
}

export interface TokenAfterRecreate {
  /** The SA UID the token handed to the plugin names. */
  uid: 'new' | 'old';
  /** The API server (TokenReview) still accepts it. */
  accepted: boolean;
  because: string;
}

/**
 * The token a pod's next pull hands the plugin after its SA was recreated. `samePod`: the pod that
 * already got a token (its cached one is still fresh); a new pod always gets a new token.
 */
export function tokenAfterRecreate(
  kubelet: Pick<KubeBehaviour, 'tokenCacheKeyedByServiceAccountUid' | 'minor'>,
  samePod: boolean,
): TokenAfterRecreate {
  if (!samePod)
    return {
      uid: 'new',
      accepted: true,
      because:
        'a new pod is a new bound object: the token manager has no token for it, so the TokenRequest (with the new UID) issues one',
    };
  if (kubelet.tokenCacheKeyedByServiceAccountUid)
    return {
      uid: 'new',
      accepted: true,
      because: `kubelet 1.${kubelet.minor} keys its token cache by the SA's UID (k/k #132803): the new UID misses the old token and a new one is requested`,
    };
  return {
    uid: 'old',
    accepted: false,
    because: `kubelet 1.${kubelet.minor} keys its token cache by name, audience and bound pod only: the old SA's token is handed out until 80% of its life, and the API server refuses it (claims.go: the SA UID in the token no longer matches)`,
  };
}
