"""kubernetes-asyncio-probe: kubernetes_asyncio (PyPI) as a client of an exec
credential plugin, for credprov's client matrix (src/clients/kubernetes-asyncio/).

On the first request it loads the kubeconfig with
kubernetes_asyncio.config.load_kube_config into one Configuration, as a
user's program does (that is when the client runs the plugin), and builds one
ApiClient; then it answers requests read from stdin, one JSON line each,
until stdin closes:

    in:  {"path": "/version"}
    out: {"status": 200} or {"status": 401, "error": "..."} or {"error": "..."}

The client runs the plugin only in load_kube_config (and in the refresh_token
task a program may start; this probe, like most programs, does not). What it
logs at WARNING or above during a request is returned as `error` beside the
status the server gave.

The protocol runs on copies of the original stdin/stdout; fds 0 and 1 become
what a user's program would have: /dev/null and stderr, or with --terminal a
pseudo-terminal (the client tells the plugin `interactive` from
sys.stdout.isatty(), and the plugin inherits fd 0).
"""
import argparse
import asyncio
import json
import logging
import os
import sys

import kubernetes_asyncio
from kubernetes_asyncio import client, config
from kubernetes_asyncio.client.exceptions import ApiException


class Captured(logging.Handler):
    """Keeps the client's log records of the current request."""

    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def move_protocol(terminal):
    """Moves the protocol off fds 0 and 1 (see the module doc); returns its input, output and the pty master."""
    protocol_in = os.fdopen(os.dup(0), "r")
    protocol_out = os.fdopen(os.dup(1), "w")
    master = None
    if terminal:
        master, tty = os.openpty()
        os.dup2(tty, 0)
        os.dup2(tty, 1)
        os.close(tty)
    else:
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)
    return protocol_in, protocol_out, master


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kubeconfig", required=True)
    parser.add_argument("--context")
    parser.add_argument("--terminal", action="store_true")
    args = parser.parse_args()

    protocol_in, protocol_out, master = move_protocol(args.terminal)
    captured = Captured()
    logging.getLogger().addHandler(captured)

    def answer(obj):
        protocol_out.write(json.dumps(obj) + "\n")
        protocol_out.flush()

    answer({"ready": "kubernetes-asyncio", "version": kubernetes_asyncio.__version__})
    loop = asyncio.get_running_loop()
    api = None
    while True:
        line = await loop.run_in_executor(None, protocol_in.readline)
        if not line:
            break
        if not line.strip():
            continue
        captured.lines = []
        try:
            path = json.loads(line)["path"]
        except (ValueError, KeyError) as e:
            answer({"error": "kubernetes-asyncio-probe: bad request line: %s" % e})
            continue
        out = {}
        try:
            if api is None:
                configuration = client.Configuration()
                await config.load_kube_config(config_file=args.kubeconfig, context=args.context,
                                              client_configuration=configuration, persist_config=False)
                api = client.ApiClient(configuration)
            response = await api.call_api(path, "GET", header_params={"Accept": "application/json"},
                                          auth_settings=["BearerToken"], _preload_content=False)
            out["status"] = response.status
            response.release()
        except ApiException as e:
            if e.status:
                out["status"] = e.status
            else:
                out["error"] = str(e.reason)
        except Exception as e:  # the client's own failure, reported as it words it
            out["error"] = "%s: %s" % (type(e).__name__, e)
        if captured.lines:
            logged = "; ".join(captured.lines)
            out["error"] = logged if "error" not in out else "%s; %s" % (logged, out["error"])
        answer(out)
    if api is not None:
        await api.close()


if __name__ == "__main__":
    asyncio.run(main())
