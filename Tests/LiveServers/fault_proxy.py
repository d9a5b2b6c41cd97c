#!/usr/bin/env python3
"""A TCP proxy with a fault, for Reel's live push tests: fault_proxy.py PORT TARGET PASS STALL.

Listens on 127.0.0.1:PORT and forwards each connection to 127.0.0.1:TARGET. The first connection is passed for
PASS seconds, then the proxy stops reading from the client for STALL seconds (a network that stalls: the
client's writes block once the small socket buffers are full) and then resets it (RST, as a middlebox that
gives up). Later connections pass untouched. Prints one line per event, and stops on SIGTERM.
"""
import signal
import socket
import struct
import sys
import threading
import time

port, target, pass_seconds, stall_seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])


def log(text):
    print(f"{time.monotonic():.3f} {text}", flush=True)


def pump(source, sink, stop):
    try:
        while not stop.is_set():
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    stop.set()


def serve(client, number):
    server = socket.create_connection(("127.0.0.1", target), timeout=5)
    server.settimeout(None)
    stop = threading.Event()
    threading.Thread(target=pump, args=(server, client, stop), daemon=True).start()
    if number > 1:
        pump(client, server, stop)
    else:
        began = time.monotonic()
        client.settimeout(0.2)
        try:
            while not stop.is_set() and time.monotonic() - began < pass_seconds:
                try:
                    data = client.recv(65536)
                except socket.timeout:
                    continue
                if not data:
                    break
                server.sendall(data)
        except OSError:
            pass
        log(f"connection {number}: stalled")
        time.sleep(stall_seconds)
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        log(f"connection {number}: reset")
    stop.set()
    for end in (client, server):
        # shutdown first: close() alone leaves the socket open while the other thread is still in recv() on it.
        try:
            if end is server:
                end.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        try:
            end.close()
        except OSError:
            pass


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Small buffers, so a stall shows at the client within a second of it, not after megabytes.
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    listener.bind(("127.0.0.1", port))
    listener.listen(8)
    log("listening")
    number = 0
    deadline = time.monotonic() + 300
    listener.settimeout(1)
    while time.monotonic() < deadline:
        try:
            client, _ = listener.accept()
        except socket.timeout:
            continue
        number += 1
        log(f"connection {number}: accepted")
        threading.Thread(target=serve, args=(client, number), daemon=True).start()


main()
