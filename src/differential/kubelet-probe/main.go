// kubelet-probe: the kubelet's own code (k8s.io/kubernetes at the version
// credprov builds), asked the questions credprov's models answer, so the
// differential tests (src/differential) can hold the models to it on
// generated inputs. No cluster: the credential provider package is called
// in-process (credprov_probe.go, added to it by go build -overlay), and a
// plugin "run" is /bin/cat printing the answer under test.
//
// One JSON request per line on stdin, one answer per line on stdout, each
// carrying the request's id; requests are answered concurrently (-workers),
// so answers may come out of order:
//
//	{"id":1,"op":"answer","provider":{…},"image":"reg.io/app","stdout":"<base64>","serviceAccount":{…}}
//	  → {"id":1,"allowed":true,"provideError":"","found":true,"users":["u"]}
//	{"id":2,"op":"match","pattern":"*.reg.io","target":"a.reg.io/app"} → {"id":2,"match":true}
//	{"id":3,"op":"parse","ref":"reg.io/app:1"} → {"id":3,"repository":"reg.io/app","tag":"1","digest":""}
//	{"id":4,"op":"keyring","auth":{"reg.io":"u"},"image":"reg.io/app"} → {"id":4,"found":true,"users":["u"]}
//	{"id":5,"op":"allowed","matchImages":["reg.io"],"image":"reg.io/app"} → {"id":5,"allowed":true}
package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/credentialprovider"
	"k8s.io/kubernetes/pkg/credentialprovider/plugin"
	kubeletconfig "k8s.io/kubernetes/pkg/kubelet/apis/config"
	"k8s.io/kubernetes/pkg/util/parsers"
)

type provider struct {
	APIVersion           string   `json:"apiVersion"`
	MatchImages          []string `json:"matchImages"`
	DefaultCacheDuration string   `json:"defaultCacheDuration"`
	TokenAttributes      *struct {
		ServiceAccountTokenAudience string `json:"serviceAccountTokenAudience"`
		CacheType                   string `json:"cacheType"`
		RequireServiceAccount       *bool  `json:"requireServiceAccount"`
	} `json:"tokenAttributes"`
}

type request struct {
	ID             int                            `json:"id"`
	Op             string                         `json:"op"`
	Provider       *provider                      `json:"provider"`
	Image          string                         `json:"image"`
	Stdout         string                         `json:"stdout"`
	ServiceAccount *plugin.CredprovServiceAccount `json:"serviceAccount"`
	Pattern        string                         `json:"pattern"`
	Target         string                         `json:"target"`
	Ref            string                         `json:"ref"`
	Auth           map[string]string              `json:"auth"`
	MatchImages    []string                       `json:"matchImages"`
}

func main() {
	workers := flag.Int("workers", 4, "requests answered at once")
	flag.Parse()
	// The kubelet logs what it refuses; the answers carry it.
	klog.SetOutput(os.Stderr)
	klog.LogToStderr(false)

	dir, err := os.MkdirTemp("", "credprov-kubelet-probe-")
	if err != nil {
		fatal("temp dir: %v", err)
	}
	defer os.RemoveAll(dir)
	// The plugin: /bin/cat, named as the provider, printing the answer file it is given as its argument.
	if err := os.Symlink("/bin/cat", filepath.Join(dir, "p")); err != nil {
		fatal("plugin link: %v", err)
	}

	var mu sync.Mutex
	out := json.NewEncoder(os.Stdout)
	emit := func(v map[string]any) {
		mu.Lock()
		defer mu.Unlock()
		_ = out.Encode(v)
	}
	emit(map[string]any{"ready": "kubelet-probe"})

	lines := make(chan []byte)
	var wg sync.WaitGroup
	for w := 0; w < *workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for line := range lines {
				emit(answer(dir, line))
			}
		}()
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 256<<20)
	for in.Scan() {
		lines <- append([]byte(nil), in.Bytes()...)
	}
	close(lines)
	wg.Wait()
}

func answer(dir string, line []byte) map[string]any {
	var r request
	if err := json.Unmarshal(line, &r); err != nil {
		return map[string]any{"error": fmt.Sprintf("bad request line: %v", err)}
	}
	out := map[string]any{"id": r.ID}
	switch r.Op {
	case "answer":
		if r.Provider == nil {
			out["error"] = "answer needs a provider"
			return out
		}
		stdout, err := base64.StdEncoding.DecodeString(r.Stdout)
		if err != nil {
			out["error"] = fmt.Sprintf("stdout is not base64: %v", err)
			return out
		}
		file := filepath.Join(dir, fmt.Sprintf("answer-%d", r.ID))
		if err := os.WriteFile(file, stdout, 0o600); err != nil {
			out["error"] = err.Error()
			return out
		}
		defer os.Remove(file)
		a, err := plugin.CredprovProvide(kubeletProvider(r.Provider, file), dir, r.Image, r.ServiceAccount)
		if err != nil {
			out["error"] = err.Error()
			return out
		}
		out["allowed"], out["provideError"], out["found"], out["users"] = a.Allowed, a.ProvideError, a.Found, a.Users
	case "match":
		m, err := credentialprovider.URLsMatchStr(r.Pattern, r.Target)
		out["match"] = m
		if err != nil {
			out["matchError"] = err.Error()
		}
	case "parse":
		repo, tag, digest, err := parsers.ParseImageName(r.Ref)
		if err != nil {
			out["parseError"] = err.Error()
		} else {
			out["repository"], out["tag"], out["digest"] = repo, tag, digest
		}
	case "keyring":
		out["users"], out["found"] = plugin.CredprovKeyring(r.Auth, r.Image)
	case "allowed":
		out["allowed"] = plugin.CredprovAllowed(r.MatchImages, r.Image)
	default:
		out["error"] = fmt.Sprintf("unknown op %q", r.Op)
	}
	return out
}

func kubeletProvider(p *provider, answerFile string) kubeletconfig.CredentialProvider {
	d, _ := time.ParseDuration(p.DefaultCacheDuration)
	kp := kubeletconfig.CredentialProvider{
		Name:                 "p",
		APIVersion:           p.APIVersion,
		MatchImages:          p.MatchImages,
		DefaultCacheDuration: &metav1.Duration{Duration: d},
		Args:                 []string{answerFile},
	}
	if t := p.TokenAttributes; t != nil {
		kp.TokenAttributes = &kubeletconfig.ServiceAccountTokenAttributes{
			ServiceAccountTokenAudience: t.ServiceAccountTokenAudience,
			CacheType:                   kubeletconfig.ServiceAccountTokenCacheType(t.CacheType),
			RequireServiceAccount:       t.RequireServiceAccount,
		}
	}
	return kp
}

func fatal(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	_ = json.NewEncoder(os.Stdout).Encode(map[string]string{"fatal": msg})
	fmt.Fprintln(os.Stderr, "kubelet-probe: "+msg)
	os.Exit(2)
}
