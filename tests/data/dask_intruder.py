"""Another local process trying to use a Dask cluster it holds no certificate for: ``python dask_intruder.py
SCHEDULER_ADDRESS OTHER_CA_DIR PORT...``. At the scheduler it tries to run code with a plain-TCP client and with a
TLS client holding a certificate from another CA (``OTHER_CA_DIR``, from ``eval certs``); at every port it tries an
HTTP GET and a TLS handshake without a certificate (Dask's own client will not even dial TLS without one). Prints one
JSON line: what each attempt got."""

import json
import socket
import ssl
import sys

import distributed
from distributed.security import Security

address, other, ports = sys.argv[1], sys.argv[2], [int(p) for p in sys.argv[3:]]
port = address.rsplit(":", 1)[1]
clients = {
    "tcp": (f"tcp://127.0.0.1:{port}", None),
    "tls with another CA's certificate": (
        f"tls://127.0.0.1:{port}",
        Security(
            tls_ca_file=f"{other}/ca.pem", tls_client_cert=f"{other}/member.pem", tls_client_key=f"{other}/member.key",
            require_encryption=True,
        ),
    ),
}  # fmt: skip
got: dict = {}
for name, (addr, security) in clients.items():
    try:
        with distributed.Client(addr, security=security, timeout=2) as c:
            got[name] = f"ran code: {c.run_on_scheduler(lambda: 'pwned')}"
    except Exception as exc:  # noqa: BLE001 - refused is the expected outcome; which error does not matter
        got[name] = f"refused ({type(exc).__name__})"


def http(p: int) -> str:
    with socket.create_connection(("127.0.0.1", p), timeout=3) as s:
        s.sendall(b"GET /info/main/workers.html HTTP/1.0\r\n\r\n")
        try:
            return s.recv(64).decode(errors="replace")
        except (TimeoutError, ConnectionError):
            return ""


def tls_without_certificate(p: int) -> str:
    ctx = ssl.create_default_context()
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    try:
        with socket.create_connection(("127.0.0.1", p), timeout=3) as raw, ctx.wrap_socket(raw) as s:
            s.sendall(b"\0" * 8)
            return f"answered {s.recv(64)!r}"
    except ssl.SSLError as exc:  # the server demands a certificate: an alert, or the connection closed mid-handshake
        return f"refused at the TLS handshake ({type(exc).__name__})"
    except (ConnectionError, TimeoutError) as exc:
        return f"no answer ({type(exc).__name__})"


got["ports"] = {p: {"http": http(p), "tls without certificate": tls_without_certificate(p)} for p in ports}
print(json.dumps(got))
