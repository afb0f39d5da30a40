"""A raw-socket server on 127.0.0.1 for what pytest-httpserver cannot do: answer slowly.

`DripServer(reply, interval)` answers every connection by sending `reply` (a whole HTTP
response, headers included) one byte every `interval` seconds, until the client hangs up.
"""

from __future__ import annotations

import socket
import threading
import time


class DripServer:
    def __init__(self, reply: bytes, interval: float) -> None:
        self.reply = reply
        self.interval = interval
        self.connections = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}/slow"

    def __enter__(self) -> DripServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._listener.close()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            self.connections += 1
            threading.Thread(target=self._drip, args=(conn,), daemon=True).start()

    def _drip(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            try:
                conn.recv(65536)  # the request: one small GET
                for byte in self.reply:
                    if self._stop.is_set():
                        return
                    conn.sendall(bytes([byte]))
                    time.sleep(self.interval)
            except OSError:
                return  # the client hung up: what the deadline is for


def http_reply(body: bytes, content_type: str = "application/json") -> bytes:
    head = (
        f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + body
