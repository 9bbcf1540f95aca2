"""A master RPC endpoint in the test process: answers each MCR1 frame with what ``handler`` makes
of the request (the response's ``result`` and, unless it says otherwise, ``serverTimeMs``), and
keeps the requests for the test to inspect."""

import socket
import struct
import threading

import cbor2

from mooncake_osgi.connect import recv_exactly
from mooncake_osgi.master import MAGIC, PROTOCOL_VERSION, encode_frame

_HEADER = struct.Struct(">Ii")


class FakeMaster:
    def __init__(self, handler):
        """``handler(request)`` returns (result, serverTimeMs or None); HELLO is answered here."""
        self.handler = handler
        self.requests = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self._listener.getsockname()[1]}"
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        try:
            conn, _ = self._listener.accept()
        except OSError:
            return
        with conn:
            while True:
                try:
                    magic, length = _HEADER.unpack(recv_exactly(conn, _HEADER.size))
                except (ConnectionError, OSError):
                    return
                assert magic == MAGIC
                request = cbor2.loads(recv_exactly(conn, length))
                self.requests.append(request)
                if request["op"] == "HELLO":
                    result, server_ms = PROTOCOL_VERSION, None
                else:
                    result, server_ms = self.handler(request)
                response = {"id": request["id"], "code": 0, "message": None, "result": result}
                if server_ms is not None:
                    response["serverTimeMs"] = server_ms
                conn.sendall(encode_frame(response))

    def close(self):
        try:
            self._listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._listener.close()
        self._thread.join(5)
