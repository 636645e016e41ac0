// Added to k8s.io/kubernetes/pkg/credentialprovider/plugin by `go build
// -overlay` (src/differential/kubelet-probe.ts), so credprov's kubelet probe
// can call the package's unexported code: nothing of the package is changed,
// and everything below only calls it. Not compiled on its own.

package plugin

import (
	"context"

	authenticationv1 "k8s.io/api/authentication/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	credentialproviderapi "k8s.io/kubelet/pkg/apis/credentialprovider"
	"k8s.io/kubernetes/pkg/credentialprovider"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
)

// CredprovServiceAccount is the pod's service account, for a provider with tokenAttributes.
type CredprovServiceAccount struct {
	Namespace   string
	Name        string
	UID         string
	Token       string
	Annotations map[string]string
}

// CredprovAnswer is what the kubelet made of one plugin run for one image.
type CredprovAnswer struct {
	// ProvideError is pluginProvider.provide's error: the kubelet logs it and uses no credentials.
	ProvideError string
	// Users are the usernames externalCredentialProviderKeyring.Lookup returns for the image, in order.
	Users []string
	Found bool
	// Allowed is isImageAllowed: whether matchImages lets the kubelet ask the plugin at all.
	Allowed bool
}

// replay hands provide() an answer the real execPlugin already gave, so the
// keyring is filled by the kubelet's own provide() without running the plugin twice.
type replay struct {
	resp *credentialproviderapi.CredentialProviderResponse
	err  error
}

func (r replay) ExecPlugin(context.Context, string, string, map[string]string) (*credentialproviderapi.CredentialProviderResponse, error) {
	return r.resp, r.err
}

// recording keeps what the real execPlugin returned.
type recording struct {
	inner Plugin
	resp  *credentialproviderapi.CredentialProviderResponse
	err   error
}

func (r *recording) ExecPlugin(ctx context.Context, image, token string, annotations map[string]string) (*credentialproviderapi.CredentialProviderResponse, error) {
	r.resp, r.err = r.inner.ExecPlugin(ctx, image, token, annotations)
	return r.resp, r.err
}

// CredprovProvide runs one image pull's worth of the kubelet's credential
// provider code for `provider`, whose plugin is <binDir>/<provider.Name>:
// newPluginProvider (as RegisterCredentialProviderPlugins builds it), then
// provide() with the real execPlugin (exec, apiVersion check, strict decode,
// the token-as-password and cacheKeyType checks), then the external keyring's
// Lookup for the image, from a fresh provider (so no cache carries over).
func CredprovProvide(provider kubeletconfig.CredentialProvider, binDir, image string, sa *CredprovServiceAccount) (CredprovAnswer, error) {
	getSA := func(namespace, name string) (*v1.ServiceAccount, error) {
		return &v1.ServiceAccount{}, nil
	}
	getToken := func(namespace, name string, tr *authenticationv1.TokenRequest) (*authenticationv1.TokenRequest, error) {
		return &authenticationv1.TokenRequest{}, nil
	}
	var saName, namespace, pod, podUID string
	if sa != nil {
		saName, namespace, pod, podUID = sa.Name, sa.Namespace, "credprov-probe", "credprov-probe-pod-uid"
		getSA = func(string, string) (*v1.ServiceAccount, error) {
			s := &v1.ServiceAccount{}
			s.UID = types.UID(sa.UID)
			s.Annotations = sa.Annotations
			return s, nil
		}
		getToken = func(string, string, *authenticationv1.TokenRequest) (*authenticationv1.TokenRequest, error) {
			tr := &authenticationv1.TokenRequest{}
			tr.Status.Token = sa.Token
			return tr, nil
		}
	}
	p, err := newPluginProvider(binDir, provider, getToken, getSA)
	if err != nil {
		return CredprovAnswer{}, err
	}
	out := CredprovAnswer{Allowed: p.isImageAllowed(image), Users: []string{}}
	rec := &recording{inner: p.plugin}
	p.plugin = rec
	if _, _, err := p.provide(image, namespace, pod, types.UID(podUID), saName); err != nil {
		out.ProvideError = err.Error()
	}
	if !out.Allowed {
		return out, nil
	}
	// The keyring, as a pull asks it: a fresh provider answering what the plugin answered.
	q, err := newPluginProvider(binDir, provider, getToken, getSA)
	if err != nil {
		return CredprovAnswer{}, err
	}
	q.plugin = replay{resp: rec.resp, err: rec.err}
	keyring := &externalCredentialProviderKeyring{providers: []dockerConfigProviderWithCoordinates{
		&perPodPluginProvider{provider: q, podNamespace: namespace, podName: pod, podUID: types.UID(podUID), serviceAccountName: saName},
	}}
	creds, found := keyring.Lookup(image)
	out.Found = found
	for _, c := range creds {
		out.Users = append(out.Users, c.Username)
	}
	return out, nil
}

// CredprovAllowed is isImageAllowed for matchImages.
func CredprovAllowed(matchImages []string, image string) bool {
	p := &pluginProvider{matchImages: matchImages}
	return p.isImageAllowed(image)
}

// CredprovKeyring is a BasicDockerKeyring holding `auth` (key → username), asked for `image`.
func CredprovKeyring(auth map[string]string, image string) ([]string, bool) {
	cfg := credentialprovider.DockerConfig{}
	for k, u := range auth {
		cfg[k] = credentialprovider.DockerConfigEntry{Username: u, Password: "p"}
	}
	kr := &credentialprovider.BasicDockerKeyring{}
	kr.Add(nil, cfg)
	creds, found := kr.Lookup(image)
	users := []string{}
	for _, c := range creds {
		users = append(users, c.Username)
	}
	return users, found
}
