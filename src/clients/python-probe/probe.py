"""python-probe: the official Kubernetes Python client (`kubernetes` on PyPI)
as a client of an exec credential plugin, for credprov's client matrix
(src/clients/python.ts).

It loads the kubeconfig with kubernetes.config.load_kube_config, as a user's
script does, on the first request (that is when the client runs the plugin),
into one ApiClient, then answers requests read from stdin, one JSON line each,
until stdin closes:

    in:  {"path": "/version"}
    out: {"status": 200} or {"status": 401, "error": "..."} or {"error": "..."}

The client logs a plugin it refuses with logging.error and carries on with no
credential; those log lines are captured per request and returned as `error`
next to the status the server gave the credential-less request.

With --batch (credprov's differential tests, src/differential) each line
names its own kubeconfig and gets a client of its own, loaded as above, so
one process judges thousands of plugin answers, one after another:

    in:  {"id": 7, "kubeconfig": "/tmp/case-7.kubeconfig", "path": "/version?case=7"}
    out: {"id": 7, "status": 200} or {"id": 7, "status": 401, "error": "..."}

The protocol runs on copies of the original stdin/stdout; fds 0 and 1 become
what a user's script would have (move_protocol): /dev/null, or with
--terminal a pseudo-terminal (the client decides `interactive` from
sys.stdout.isatty() and then hands sys.stdin to the plugin).
"""
import argparse
import json
import logging
import os
import sys

import kubernetes
from kubernetes import client, config
from kubernetes.client.exceptions import ApiException
from kubernetes.config import kube_config


class Captured(logging.Handler):
    """Keeps the client's log records of the current request."""

    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def move_protocol(terminal):
    """Moves the protocol off fds 0 and 1, where the client and its plugin would see it.

    The client hands the plugin its own stdin when it thinks it is interactive
    (sys.stdout.isatty()) and otherwise lets the plugin inherit it (Popen
    stdin=None), so fd 0 must be what a user's script has: a terminal with
    --terminal, else /dev/null (a script run from cron or CI). fd 1 becomes the
    terminal too, or stderr, so nothing the client prints can corrupt an answer.
    Returns the protocol's input and output, and the terminal's controlling
    side (to be kept open for the process's life, or the terminal hangs up).
    """
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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--kubeconfig")
    parser.add_argument("--context")
    parser.add_argument("--terminal", action="store_true")
    parser.add_argument("--batch", action="store_true")
    args = parser.parse_args()
    if not args.batch and not args.kubeconfig:
        parser.error("--kubeconfig is required (or --batch)")

    protocol_in, protocol_out, master = move_protocol(args.terminal)

    captured = Captured()
    logging.getLogger().addHandler(captured)

    def answer(obj):
        protocol_out.write(json.dumps(obj) + "\n")
        protocol_out.flush()

    answer({"ready": "python", "version": kubernetes.__version__})
    api = None
    for line in protocol_in:
        captured.lines = []
        try:
            request = json.loads(line)
            path = request["path"]
        except (ValueError, KeyError) as e:
            answer({"error": "python-probe: bad request line: %s" % e})
            continue
        out = {}
        if args.batch:
            out["id"] = request.get("id")
            api = None
            # Each case as a fresh process sees it: the loader reuses temp files by content across loads
            # (a certificate it failed to write once would be an empty file the next time).
            kube_config._temp_files.clear()
        try:
            if api is None:
                configuration = client.Configuration()
                config.load_kube_config(config_file=request["kubeconfig"] if args.batch else args.kubeconfig,
                                        context=args.context, client_configuration=configuration,
                                        persist_config=False)
                api = client.ApiClient(configuration)
            method, url, headers, body, post = api.param_serialize(
                method="GET", resource_path=path, header_params={"Accept": "application/json"},
                auth_settings=["BearerToken"])
            response = api.call_api(method, url, headers, body, post)
            response.read()
            out["status"] = response.status
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
        if args.batch and api is not None:
            try:
                api.close()
            except Exception:  # closing the pool is housekeeping, not the verdict
                pass
        answer(out)


if __name__ == "__main__":
    main()
