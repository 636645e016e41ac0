// A compiled credential provider whose version is stamped at link time
// (-ldflags -X main.version=…), for credprov's plugin-replacement suite: a
// shell-script plugin cannot show ETXTBSY (the kernel executes its
// interpreter, not the script). Per exec it appends two JSON lines to
// $CREDPROV_VP_LOG (start, then end) with its version, pid and the request's
// image; for an image whose path contains "slow" it sleeps $CREDPROV_VP_SLOW
// first; it answers the image's host with $CREDPROV_VP_USERNAME and
// $CREDPROV_VP_PASSWORD, cacheKeyType Image, cacheDuration $CREDPROV_VP_CACHE.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

var version = "unstamped"

func record(event, image string) {
	f, err := os.OpenFile(os.Getenv("CREDPROV_VP_LOG"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	line, _ := json.Marshal(map[string]any{
		"event": event, "version": version, "pid": os.Getpid(), "image": image, "time": time.Now().UTC().Format(time.RFC3339Nano),
	})
	f.Write(append(line, '\n'))
}

func main() {
	var req struct {
		Image string `json:"image"`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		fmt.Fprintf(os.Stderr, "credprov versioned plugin %s: bad request: %v\n", version, err)
		os.Exit(1)
	}
	record("start", req.Image)
	if strings.Contains(req.Image, "slow") {
		if d, err := time.ParseDuration(os.Getenv("CREDPROV_VP_SLOW")); err == nil {
			time.Sleep(d)
		}
	}
	host := strings.SplitN(req.Image, "/", 2)[0]
	json.NewEncoder(os.Stdout).Encode(map[string]any{
		"apiVersion":    "credentialprovider.kubelet.k8s.io/v1",
		"kind":          "CredentialProviderResponse",
		"cacheKeyType":  "Image",
		"cacheDuration": os.Getenv("CREDPROV_VP_CACHE"),
		"auth": map[string]any{
			host: map[string]string{"username": os.Getenv("CREDPROV_VP_USERNAME"), "password": os.Getenv("CREDPROV_VP_PASSWORD")},
		},
	})
	record("end", req.Image)
}
