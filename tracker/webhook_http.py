"""Where a webhook may be sent, and the one POST of a delivery attempt (urllib3), safe from server-side forgery.

A URL is checked when an owner registers it (``check_url``) and its name is resolved and checked again at every
attempt (``post``): a name may point somewhere else since (DNS rebinding). Every address the name resolves to must be
public (``allowed``) or inside ``WEBHOOK_ALLOWED_NETWORKS``; one refused address refuses the name. The connection goes
to the checked address, with the name as Host, TLS SNI and the certificate's expected name; redirects are never
followed (a 3xx is a failed attempt, as the Standard Webhooks spec says), urllib3 reads no proxy from the environment,
and there are no retries here (the delivery's schedule retries).

Python 3.11's ``ipaddress`` calls 224.0.0.1 and the NAT64 / 6to4 forms of 127.0.0.1 global, so ``allowed`` also looks
inside IPv6 addresses that carry an IPv4 one (mapped, 6to4, Teredo, NAT64).
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import threading
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import SplitResult, urlsplit

import urllib3
import urllib3.connection
from django.conf import settings

from ddbmodels.core.errors import InvalidInput, Unavailable
from ddbmodels.core.keys import utcnow

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

MAX_URL_CHARS = 2000
CONNECT_TIMEOUT_SECONDS = 5
SNIPPET_BYTES = 512  # of the receiver's answer, kept in the delivery log
MAX_ADDRESSES_TRIED = 3  # a name with many addresses: the attempt's time stays bounded (connect 5 s each)
MAX_RETRY_AFTER_SECONDS = 86_400
NAT64 = ipaddress.ip_network("64:ff9b::/96")
# Not public, though Python 3.11's is_global says so: IETF protocol assignments (192.0.0.0/24, RFC 6890) but for
# the two anycast services reachable everywhere, .9 (PCP, RFC 7723) and .10 (TURN, RFC 8155); documentation
# (2001:db8::/32, RFC 3849; 3fff::/20, RFC 9637); site-local fec0::/10 (deprecated, still routed in some networks).
NOT_PUBLIC = tuple(
    ipaddress.ip_network(network) for network in ("192.0.0.0/24", "2001:db8::/32", "3fff::/20", "fec0::/10")
)
PUBLIC_EXCEPTIONS = (ipaddress.ip_address("192.0.0.9"), ipaddress.ip_address("192.0.0.10"))
DEFAULT_PORTS = {"http": 80, "https": 443}
CA_CERTS: str | None = None  # a CA bundle file instead of the system's (tests of the TLS path); None: the system's


@dataclass(frozen=True)
class Answer:
    """What one attempt got: ``status`` 0 when no HTTP answer came (``error`` says why), ``ms`` its duration."""

    status: int
    ms: int
    snippet: str = ""  # the answer's first bytes (≤ SNIPPET_BYTES of UTF-8)
    retry_after: int | None = None  # seconds, from a Retry-After header
    error: str = ""  # no answer: refused address, could not connect, timed out, TLS

    @property
    def ok(self) -> bool:
        """2xx only: a 3xx is not followed, so it is a failure."""
        return 200 <= self.status < 300


def allowed(ip: IPAddress) -> bool:
    """A public address: not private, loopback, link-local, site-local, multicast, reserved, shared, documentation
    or an IETF protocol assignment (``NOT_PUBLIC``, but for ``PUBLIC_EXCEPTIONS``) (RESEARCH22 §6)."""
    if ip not in PUBLIC_EXCEPTIONS and any(ip in network for network in NOT_PUBLIC):
        return False
    if ip.version == 6:
        assert isinstance(ip, ipaddress.IPv6Address)
        teredo = ip.teredo
        for inner in (ip.ipv4_mapped, ip.sixtofour, teredo[1] if teredo else None):
            if inner is not None and not allowed(inner):
                return False
        if ip in NAT64:
            return allowed(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return ip.is_global and not (
        ip.is_multicast or ip.is_reserved or ip.is_loopback or ip.is_link_local or ip.is_private
    )


def permitted(ip: IPAddress) -> bool:
    """``allowed``, or inside one of ``WEBHOOK_ALLOWED_NETWORKS`` (read now: tests and settings may change it)."""
    networks = [ipaddress.ip_network(network, strict=False) for network in settings.WEBHOOK_ALLOWED_NETWORKS]
    candidates: list[IPAddress] = [ip]
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        candidates.append(ip.ipv4_mapped)  # ::ffff:127.0.0.1 is 127.0.0.1
    if any(candidate in network for candidate in candidates for network in networks):
        return True
    return allowed(ip)


def check_url(url: str) -> None:
    """Refuse (InvalidInput) a URL a webhook cannot go to: not http(s), a user or password in it, no host, a port out
    of range, spaces, too long, or a name resolving to an address that is not public (``resolve``)."""
    parts = split(url)
    resolve(parts.hostname or "", port_of(parts))


def split(url: str) -> SplitResult:
    """The URL's parts once it is well formed (InvalidInput otherwise)."""
    if not isinstance(url, str) or not url.strip():
        raise InvalidInput("Give the URL webhooks are sent to.", field="url")
    if len(url) > MAX_URL_CHARS:
        raise InvalidInput(f"A webhook URL has at most {MAX_URL_CHARS} characters.", field="url")
    if any(character.isspace() or ord(character) < 32 or ord(character) == 127 for character in url):
        raise InvalidInput("A webhook URL has no spaces or control characters.", field="url")
    try:
        parts = urlsplit(url)
        port_of(parts)
    except ValueError as error:
        raise InvalidInput(f"This is not a URL webhooks can be sent to: {error}.", field="url") from error
    if parts.scheme not in DEFAULT_PORTS:
        raise InvalidInput("A webhook URL starts with https:// (or http://).", field="url")
    if "@" in parts.netloc:
        raise InvalidInput(
            "A webhook URL has no user name or password in it: the signature proves the sender.", field="url"
        )
    if not parts.hostname:
        raise InvalidInput("A webhook URL names a host.", field="url")
    return parts


def port_of(parts: SplitResult) -> int:
    """The URL's port, or its scheme's (ValueError for a port out of range)."""
    return parts.port or DEFAULT_PORTS.get(parts.scheme, 443)


def resolve(host: str, port: int) -> list[str]:
    """The host's addresses, each checked (``permitted``); InvalidInput if ANY is refused or the name is unknown,
    Unavailable when DNS does not answer now. An address literal is checked without DNS."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        if error.errno in (socket.EAI_AGAIN, getattr(socket, "EAI_SYSTEM", None)):
            raise Unavailable(f"The name {host} could not be looked up just now: {error.strerror}.") from error
        raise InvalidInput(f"The name {host} could not be found.", field="url") from error
    except UnicodeError as error:  # a label longer than 63 characters, an empty label
        raise InvalidInput(f"The name {host} is not a valid host name.", field="url") from error
    addresses: list[str] = []
    for _family, _type, _proto, _canonical, sockaddr in infos:
        address = str(sockaddr[0]).split("%", 1)[0]  # an IPv6 scope (fe80::1%eth0) names no other address
        if address not in addresses:
            addresses.append(address)
    for address in addresses:
        if not permitted(ipaddress.ip_address(address)):
            raise InvalidInput(
                f"{host} leads to {address}, an address of a private network, this machine or a reserved range: "
                "webhooks are sent to public addresses only.",
                field="url",
            )
    if not addresses:
        raise InvalidInput(f"The name {host} has no address.", field="url")
    return addresses


def post(url: str, body: str, headers: dict[str, str]) -> Answer:
    """POST ``body`` (exactly the bytes signed) to the URL's checked address; never raises for the network's sake.

    Resolved and checked again now; tries up to MAX_ADDRESSES_TRIED addresses until one connects (5 s each), then
    reads the answer's status, headers and first SNIPPET_BYTES. The whole attempt ends WEBHOOK_TIMEOUT_SECONDS after
    it started (``Deadline``), however the receiver trickles its answer: no status by then is no answer; a status
    that came is kept with what of the body came (R22-5). Looking the name up is the system resolver's (its own
    timeouts); the task's time limit (``deliver_webhook``) is the bound over that."""
    started = time.monotonic()
    try:
        parts = split(url)
        port = port_of(parts)
        host = parts.hostname or ""
        addresses = resolve(host, port)
    except (InvalidInput, Unavailable) as error:
        return Answer(status=0, ms=elapsed_ms(started), error=str(error))
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    sent = {**headers, "Host": parts.netloc, "User-Agent": "Tracker-Webhooks/1"}
    error_text = ""
    with Deadline(started, settings.WEBHOOK_TIMEOUT_SECONDS) as deadline:
        for address in addresses[:MAX_ADDRESSES_TRIED]:
            left = deadline.left()
            if left <= 0:
                break
            timeout = urllib3.Timeout(connect=min(CONNECT_TIMEOUT_SECONDS, left), read=left)
            pool = connection_pool(parts.scheme, address, port, host, timeout, deadline)
            try:
                response = pool.urlopen(
                    "POST",
                    target,
                    body=body.encode(),
                    headers=sent,
                    redirect=False,
                    retries=False,
                    preload_content=False,
                    assert_same_host=False,
                )
                first = b""
                try:  # what of the body comes before the deadline: read in pieces, as a trickle stops at the cut
                    while len(first) < SNIPPET_BYTES:
                        piece = response.read(SNIPPET_BYTES - len(first), decode_content=False)
                        if not piece:
                            break
                        first += piece
                except (urllib3.exceptions.HTTPError, OSError):
                    pass  # the status came; an answer cut short while read is still that status
                response.close()
                return Answer(
                    status=response.status,
                    ms=elapsed_ms(started),
                    snippet=first[:SNIPPET_BYTES].decode("utf-8", "ignore"),
                    retry_after=retry_after_seconds(response.headers.get("Retry-After")),
                )
            except (urllib3.exceptions.NewConnectionError, urllib3.exceptions.ConnectTimeoutError) as error:
                error_text = describe(error)  # this address does not take connections: the next one may
            except (urllib3.exceptions.HTTPError, OSError) as error:
                if deadline.passed:
                    return Answer(status=0, ms=elapsed_ms(started), error=deadline.reason())
                return Answer(status=0, ms=elapsed_ms(started), error=describe(error))
            finally:
                pool.close()
        if deadline.passed or deadline.left() <= 0:
            return Answer(status=0, ms=elapsed_ms(started), error=error_text or deadline.reason())
    return Answer(status=0, ms=elapsed_ms(started), error=error_text or "could not connect")


class Deadline:
    """An attempt's wall-clock end: when it passes, the attempt's connections are shut down (``cut``), so a read
    that waits returns at once. A per-read timeout alone never ends an answer sent a byte a second.

    Each connection is followed by a twin of its socket (``socket.dup``: the same connection, a descriptor of
    ours), taken when it connects; shutting the twin down ends the connection under TLS too, and a descriptor
    number closed and reused meanwhile is never touched. One timer thread an attempt, stopped when it ends."""

    def __init__(self, started: float, seconds: int) -> None:
        self.seconds = seconds
        self.end = started + seconds
        self.passed = False
        self._twins: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(max(0.0, self.left()), self.cut)
        self._timer.daemon = True

    def __enter__(self) -> Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
        with self._lock:
            for twin in self._twins:
                twin.close()
            self._twins.clear()

    def left(self) -> float:
        return self.end - time.monotonic()

    def reason(self) -> str:
        return f"no answer within {self.seconds} s"

    def follow(self, sock: socket.socket) -> None:
        """Watch a connection just made (cut at once if the deadline passed while it connected)."""
        with self._lock:
            twin = sock.dup()
            self._twins.append(twin)
            if self.passed:
                shut(twin)

    def cut(self) -> None:
        with self._lock:
            self.passed = True
            for twin in self._twins:
                shut(twin)


def shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed by the other side: nothing to end
        sock.shutdown(socket.SHUT_RDWR)


class Watched:
    """A urllib3 connection followed by the attempt's ``Deadline`` once connected (``deadline`` from the pool)."""

    deadline: Deadline

    def __init__(self, *args: Any, deadline: Deadline, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.deadline = deadline

    def _new_conn(self) -> socket.socket:
        sock: socket.socket = super()._new_conn()  # type: ignore[misc]  # the urllib3 connection it is mixed into
        self.deadline.follow(sock)
        return sock


class WatchedHTTPConnection(Watched, urllib3.connection.HTTPConnection):
    """urllib3's http connection, followed by the attempt's deadline."""


class WatchedHTTPSConnection(Watched, urllib3.connection.HTTPSConnection):
    """The same for https: followed before the TLS handshake, so a trickled handshake is cut too."""


def connection_pool(
    scheme: str, address: str, port: int, host: str, timeout: urllib3.Timeout, deadline: Deadline
) -> urllib3.HTTPConnectionPool:
    """A one-connection pool to the checked address; for https, SNI and the certificate checked against the name.
    Its connection is followed by the attempt's ``deadline``."""
    if scheme == "https":
        pool: urllib3.HTTPConnectionPool = urllib3.HTTPSConnectionPool(
            address,
            port,
            server_hostname=host,
            assert_hostname=host,
            cert_reqs="CERT_REQUIRED",
            ca_certs=CA_CERTS,
            timeout=timeout,
            retries=False,
            maxsize=1,
            deadline=deadline,
        )
        pool.ConnectionCls = WatchedHTTPSConnection
        return pool
    pool = urllib3.HTTPConnectionPool(address, port, timeout=timeout, retries=False, maxsize=1, deadline=deadline)
    pool.ConnectionCls = WatchedHTTPConnection
    return pool


def describe(error: BaseException) -> str:
    """A short reason for the delivery log (no traceback, no address list)."""
    if isinstance(error, urllib3.exceptions.ConnectTimeoutError):
        return f"could not connect within {CONNECT_TIMEOUT_SECONDS} s"
    if isinstance(error, urllib3.exceptions.ReadTimeoutError):
        return f"no answer within {settings.WEBHOOK_TIMEOUT_SECONDS} s"
    if isinstance(error, urllib3.exceptions.SSLError):
        return "TLS failed (certificate or handshake)"
    if isinstance(error, urllib3.exceptions.NewConnectionError):
        return "could not connect (connection refused)"
    if isinstance(error, urllib3.exceptions.ProtocolError):
        return "the connection closed before an answer"
    return f"could not send ({type(error).__name__})"


def retry_after_seconds(value: str | None) -> int | None:
    """A Retry-After header in seconds (a number, or an HTTP date), at most a day; None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return min(int(value), MAX_RETRY_AFTER_SECONDS)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0, min(int((when - utcnow()).total_seconds()), MAX_RETRY_AFTER_SECONDS))


def elapsed_ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
