"""What the gRPC test peers share: compiling their .proto files with grpcio-tools at start, TLS and
mTLS server credentials from PEM files, and the life cycle the Node launcher expects (print
`LISTENING {"port": N}` once bound on 127.0.0.1, stop when stdin closes)."""

import importlib.resources
import json
import os
import sys
import tempfile
import threading

import grpc
from grpc_tools import protoc


def compile_protos(include_dir, *files):
    """Generates the _pb2 and _pb2_grpc modules of `files` into a temporary folder on sys.path."""
    out = tempfile.mkdtemp(prefix="tooldeck-grpc-peer-")
    well_known = str(importlib.resources.files("grpc_tools") / "_proto")
    for name in files:
        code = protoc.main(["grpc_tools.protoc", f"-I{include_dir}", f"-I{well_known}", f"--python_out={out}", f"--grpc_python_out={out}", name])
        if code != 0:
            raise SystemExit(f"protoc failed for {name}")
    sys.path.insert(0, out)
    return out


def read(path):
    with open(path, "rb") as handle:
        return handle.read()


def add_port(server, args):
    """Plaintext, TLS (--cert/--key) or mTLS (plus --client-ca: a client certificate is required)."""
    address = "127.0.0.1:0"
    if not args.cert:
        return server.add_insecure_port(address)
    client_ca = read(args.client_ca) if args.client_ca else None
    credentials = grpc.ssl_server_credentials([(read(args.key), read(args.cert))], root_certificates=client_ca, require_client_auth=client_ca is not None)
    return server.add_secure_port(address, credentials)


def add_tls_arguments(parser):
    parser.add_argument("--cert", help="server certificate (PEM): serve TLS")
    parser.add_argument("--key", help="server private key (PEM)")
    parser.add_argument("--client-ca", help="CA of client certificates (PEM): require mTLS")


def serve_until_stdin_closes(server, port):
    server.start()
    print("LISTENING " + json.dumps({"port": port}), flush=True)
    done = threading.Event()

    def watch_stdin():
        try:
            while sys.stdin.read(1024):
                pass
        finally:
            done.set()

    threading.Thread(target=watch_stdin, daemon=True).start()
    done.wait()
    server.stop(grace=0.5).wait()
    os._exit(0)
