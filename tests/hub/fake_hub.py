#!/usr/bin/env python3
"""A stand-in for the Hugging Face hub on 127.0.0.1: serves the answers tests/hub/ checks (a config, a
gated model, a missing one, a ModelOpt hf_quant_config.json, a redirect, a body cut short, a slow answer, an oversized body), then runs
the command given with MOEPLAN_TEST_HUB set to its address and exits with that command's status."""
import http.server
import os
import subprocess
import sys
import threading
import time

REVISION = "0123456789abcdef0123456789abcdef01234567"
CONFIG = b'{"model_type": "llama", "hidden_size": 4096}'
QUANTIZATION = b'{"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "NVFP4", "group_size": 16}}'


class Hub(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *arguments):
        pass

    def answer(self, status, body, headers=()):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        repository, _, name = self.path.partition("/resolve/main/")
        if repository == "/org/nvfp4":
            self.answer(200, QUANTIZATION if name == "hf_quant_config.json" else CONFIG, [("X-Repo-Commit", REVISION)])
        elif repository == "/org/brokenquant":
            self.answer(500 if name == "hf_quant_config.json" else 200, b"busy" if name == "hf_quant_config.json" else CONFIG)
        elif name != "config.json":
            self.answer(404, b"not found")  # the other repositories ship no hf_quant_config.json
        elif repository == "/org/model":
            self.answer(200, CONFIG, [("X-Repo-Commit", REVISION)])
        elif repository == "/org/gated":
            granted = self.headers.get("Authorization") == "Bearer good-token"
            self.answer(200 if granted else 401, CONFIG if granted else b"gated")
        elif repository == "/org/moved":
            self.answer(302, b"", [("Location", "/org/model/resolve/main/config.json")])
        elif repository == "/org/truncated":
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(CONFIG[:10])
            self.close_connection = True
        elif repository == "/org/slow":
            time.sleep(3)
            self.answer(200, CONFIG)
        elif repository == "/org/huge":
            self.answer(200, b" " * (2 << 20))
        elif repository == "/org/notjson":
            self.answer(200, b"<html>sign in</html>")
        else:
            self.answer(404, b"not found")


class QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        pass  # a client that stops reading an oversized body resets the connection, as the test means it to


def main():
    server = QuietServer(("127.0.0.1", 0), Hub)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    environment = dict(os.environ, MOEPLAN_TEST_HUB="http://127.0.0.1:%d" % server.server_address[1])
    status = subprocess.call(sys.argv[1:], env=environment)
    server.shutdown()
    sys.exit(status)


if __name__ == "__main__":
    main()
