// client-go-probe: a real client-go client of an exec credential plugin, for
// credprov's client matrix (src/clients/client-go.ts). It loads a kubeconfig
// with clientcmd, as kubectl and controllers do, builds one REST client from
// the rest.Config (what every clientset is built on: TLS, the exec
// authenticator, its credential cache and its 401 handling, and rest.Request's
// retries), then answers requests read from stdin, one JSON line each, until
// stdin closes:
//
//	in:  {"path":"/version"}
//	out: {"status":200} or {"error":"Get \"https://…\": getting credentials: exec: …"}
//	     {"status":200,"transportErrors":["… use of closed network connection"]}
//
// transportErrors are the errors rest.Request retried past (it retries a GET
// on a connection reset or probable EOF, after a 1s Retry-After): seen after
// a client certificate rotates, when the exec authenticator closes the
// connections the HTTP/2 pool is about to reuse.
//
// The authenticator lives as long as the process, so its credential cache
// carries over between requests, as in a long-running controller. The
// plugin's stderr and client-go's klog lines go to this process's stderr.
//
// With --terminal the probe gives itself a pseudo-terminal as stdin before
// client-go sees it (client-go decides interactiveMode from os.Stdin when the
// authenticator is built), and keeps reading requests from the original stdin.
//
// With --batch (credprov's differential tests, src/differential) each line
// names its own kubeconfig, and each gets a client of its own, built as above,
// so one process judges thousands of plugin answers, one after another:
//
//	in:  {"id":7,"kubeconfig":"/tmp/case-7.kubeconfig","path":"/version?case=7"}
//	out: {"id":7,"status":200} or {"id":7,"error":"…"}
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"

	"golang.org/x/sys/unix"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

type request struct {
	Path string `json:"path"`
}

type answer struct {
	Status          int      `json:"status,omitempty"`
	Error           string   `json:"error,omitempty"`
	TransportErrors []string `json:"transportErrors,omitempty"`
}

// attempts records the errors of every HTTP attempt below rest.Request, so an
// answer can say what a retry hid.
type attempts struct {
	base http.RoundTripper
	mu   sync.Mutex
	errs []string
}

func (a *attempts) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := a.base.RoundTrip(req)
	if err != nil {
		a.mu.Lock()
		a.errs = append(a.errs, err.Error())
		a.mu.Unlock()
	}
	return resp, err
}

func (a *attempts) take() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	errs := a.errs
	a.errs = nil
	return errs
}

// The pseudo-terminal's controlling side: kept open (and reachable, so no
// finalizer closes it) for the life of the process, or the terminal hangs up.
var ptyMaster *os.File

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig to load")
	context := flag.String("context", "", "context other than the current one")
	terminal := flag.Bool("terminal", false, "give the client a pseudo-terminal as stdin")
	batch := flag.Bool("batch", false, "one kubeconfig per request line, a client of its own for each")
	flag.Parse()
	if *batch {
		runBatch()
		return
	}

	in := io.Reader(os.Stdin)
	if *terminal {
		protocol, err := attachTerminal()
		if err != nil {
			fatal("cannot give the client a terminal: %v", err)
		}
		in = protocol
	}

	client, seen, err := newClient(*kubeconfig, *context)
	if err != nil {
		fatal("%v", err)
	}

	out := json.NewEncoder(os.Stdout)
	// The first line says the client is built: the caller times requests from here.
	_ = out.Encode(map[string]string{"ready": "client-go"})
	lines := bufio.NewScanner(in)
	lines.Buffer(make([]byte, 64*1024), 1024*1024)
	for lines.Scan() {
		var r request
		if err := json.Unmarshal(lines.Bytes(), &r); err != nil {
			_ = out.Encode(answer{Error: fmt.Sprintf("client-go-probe: bad request line: %v", err)})
			continue
		}
		a := get(client, r.Path)
		a.TransportErrors = seen.take()
		_ = out.Encode(a)
	}
}

// newClient loads the kubeconfig with clientcmd and builds one REST client from the rest.Config.
func newClient(kubeconfig, context string) (*rest.RESTClient, *attempts, error) {
	rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: kubeconfig}
	overrides := &clientcmd.ConfigOverrides{CurrentContext: context}
	config, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
	if err != nil {
		return nil, nil, fmt.Errorf("loading %s: %v", kubeconfig, err)
	}
	config.UserAgent = rest.DefaultKubernetesUserAgent()
	// No decoding of bodies is needed, only statuses: an empty scheme will do.
	config.NegotiatedSerializer = serializer.NewCodecFactory(runtime.NewScheme()).WithoutConversion()
	seen := &attempts{}
	config.Wrap(func(rt http.RoundTripper) http.RoundTripper { seen.base = rt; return seen })
	client, err := rest.UnversionedRESTClientFor(config)
	if err != nil {
		return nil, nil, fmt.Errorf("building the client: %v", err)
	}
	return client, seen, nil
}

// runBatch answers one request per line, each with a client of its own for the kubeconfig it names.
func runBatch() {
	out := json.NewEncoder(os.Stdout)
	_ = out.Encode(map[string]string{"ready": "client-go"})
	lines := bufio.NewScanner(os.Stdin)
	lines.Buffer(make([]byte, 64*1024), 1024*1024)
	for lines.Scan() {
		var r struct {
			ID         int    `json:"id"`
			Kubeconfig string `json:"kubeconfig"`
			Path       string `json:"path"`
		}
		if err := json.Unmarshal(lines.Bytes(), &r); err != nil {
			_ = out.Encode(map[string]any{"error": fmt.Sprintf("client-go-probe: bad request line: %v", err)})
			continue
		}
		client, seen, err := newClient(r.Kubeconfig, "")
		if err != nil {
			_ = out.Encode(map[string]any{"id": r.ID, "error": err.Error()})
			continue
		}
		a := get(client, r.Path)
		a.TransportErrors = seen.take()
		_ = out.Encode(struct {
			ID int `json:"id"`
			answer
		}{r.ID, a})
	}
}

// get sends the request as a clientset would (rest.Request: rate limiter,
// retries); a status the server gave is reported even when Do calls it an error.
func get(client *rest.RESTClient, path string) answer {
	var status int
	err := client.Get().RequestURI(path).Do(context.Background()).StatusCode(&status).Error()
	a := answer{Status: status}
	if err != nil && status == 0 {
		a.Error = err.Error()
	}
	return a
}

// attachTerminal opens a pseudo-terminal, makes its terminal side this
// process's fd 0 (and so os.Stdin), and returns the original stdin.
func attachTerminal() (*os.File, error) {
	saved, err := unix.Dup(0)
	if err != nil {
		return nil, err
	}
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		return nil, fmt.Errorf("unlocking the pseudo-terminal: %w", err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		return nil, fmt.Errorf("naming the pseudo-terminal: %w", err)
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	if err := unix.Dup3(int(tty.Fd()), 0, 0); err != nil {
		return nil, err
	}
	_ = tty.Close()
	ptyMaster = master
	return os.NewFile(uintptr(saved), "protocol-stdin"), nil
}

func fatal(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	_ = json.NewEncoder(os.Stdout).Encode(map[string]string{"fatal": msg})
	fmt.Fprintln(os.Stderr, "client-go-probe: "+msg)
	os.Exit(2)
}
