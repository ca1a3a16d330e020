#!/usr/bin/env python3
"""SIGINT and SIGTERM end `moeplan memory --model org/stalled` while it waits on a hub that accepts the
connection and never answers: within two seconds, with exit code 130 (128 + SIGINT) or 143 (128 + SIGTERM),
and without the --json file. Usage: interrupt_fetch.py MOEPLAN WORK_DIR"""
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time


def check(moeplan, work, signal_number, expected_code):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)  # accepted by the kernel, never read or answered
    output = os.path.join(work, "memory-%d.json" % signal_number)
    environment = dict(os.environ, HF_ENDPOINT="http://127.0.0.1:%d" % listener.getsockname()[1],
                       HF_HOME=tempfile.mkdtemp(dir=work), HF_HUB_OFFLINE="0")
    environment.pop("HF_TOKEN", None)
    process = subprocess.Popen([moeplan, "memory", "--model", "org/stalled", "--layout", "tp=8", "--gpu", "H200",
                                "--gpus", "8", "--json", output], env=environment, stderr=subprocess.PIPE)
    time.sleep(1.0)  # well inside the fetch: its own limits are 10 s to connect and 30 s in all
    if process.poll() is not None:
        sys.exit("moeplan ended before the signal: %s" % process.stderr.read().decode())
    sent = time.monotonic()
    process.send_signal(signal_number)
    try:
        code = process.wait(timeout=2.0)
    except subprocess.TimeoutExpired:
        process.kill()
        sys.exit("signal %d did not end the stalled fetch within 2 s" % signal_number)
    message = process.stderr.read().decode()
    listener.close()
    if code != expected_code:
        sys.exit("signal %d: exit code %d, expected %d (%s)" % (signal_number, code, expected_code, message))
    if os.path.exists(output):
        sys.exit("signal %d left %s" % (signal_number, output))
    print("signal %d: exit %d after %.2f s: %s" % (signal_number, code, time.monotonic() - sent, message.strip()))


def main():
    moeplan, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    check(moeplan, work, signal.SIGINT, 130)
    check(moeplan, work, signal.SIGTERM, 143)


if __name__ == "__main__":
    main()
