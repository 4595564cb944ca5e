"""Where a webhook may go (SSRF checks) and what one attempt's POST tells (tracker.webhook_http)."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from typing import Any

import pytest
from pytest_django.fixtures import SettingsWrapper

from ddbmodels.core.errors import InvalidInput, Unavailable
from tests.tracker.webhooks.receiver import Reply, receiving
from tracker import webhook_http
from tracker.webhook_http import allowed, check_url, post, resolve

REFUSED = [
    "0.0.0.0",  # noqa: S104  (an address refused, not one bound)
    "10.0.0.1",
    "127.0.0.1",
    "169.254.169.254",  # the cloud's metadata service
    "172.16.0.1",
    "192.168.1.1",
    "100.64.0.1",  # shared address space (carrier NAT): not private, not global
    "224.0.0.1",  # multicast: Python 3.11's is_global says True
    "255.255.255.255",
    "::1",
    "::",
    "fd00::1",
    "fe80::1",
    "::ffff:127.0.0.1",  # IPv4-mapped
    "64:ff9b::7f00:1",  # NAT64 of 127.0.0.1: is_global says True
    "2002:7f00:1::",  # 6to4 of 127.0.0.1: is_global says True
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",  # Teredo
    "ff02::1",
    "fec0::1",  # IPv6 site-local (deprecated, still routed inside some networks): is_global says True
    "feff::1",  # the end of site-local fec0::/10
    "192.0.0.8",  # IETF protocol assignments 192.0.0.0/24: is_global says True
    "192.0.0.255",
    "3fff::1",  # documentation, RFC 9637: is_global says True
    "3fff:fff:ffff::1",  # the end of 3fff::/20
    "2001:db8::1",  # documentation, RFC 3849
    "::ffff:192.0.0.8",  # mapped: the IPv4 rules apply inside
]
ALLOWED = [
    "8.8.8.8",
    "1.1.1.1",
    "2606:4700::1111",
    "64:ff9b::808:808",
    "192.0.0.9",  # Port Control Protocol anycast: globally reachable (RFC 7723)
    "192.0.0.10",  # TURN anycast: globally reachable (RFC 8155)
    "192.0.1.1",  # just past 192.0.0.0/24
    "3fff:1000::1",  # just past 3fff::/20
    "2001:4860:4860::8888",
]


@pytest.mark.parametrize("address", REFUSED)
def test_addresses_of_private_networks_this_machine_and_reserved_ranges_are_refused(address: str) -> None:
    assert not allowed(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", ALLOWED)
def test_public_addresses_are_allowed(address: str) -> None:
    assert allowed(ipaddress.ip_address(address))


def answers_with(*addresses: str) -> Callable[..., list[tuple[Any, ...]]]:
    """A getaddrinfo that answers these addresses for any name (no DNS leaves the tests)."""

    def getaddrinfo(host: str, port: int, *args: object, **kwargs: object) -> list[tuple[Any, ...]]:
        found = []
        for address in addresses:
            family = socket.AF_INET6 if ":" in address else socket.AF_INET
            sockaddr = (address, port, 0, 0) if family == socket.AF_INET6 else (address, port)
            found.append((family, socket.SOCK_STREAM, 6, "", sockaddr))
        return found

    return getaddrinfo


def test_a_name_is_refused_when_any_of_its_addresses_is_private(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket, "getaddrinfo", answers_with("8.8.8.8", "10.1.2.3"))
    with pytest.raises(InvalidInput, match=r"10\.1\.2\.3"):
        check_url("https://hooks.example.com/x")


def test_a_name_with_public_addresses_only_is_resolved_to_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(socket, "getaddrinfo", answers_with("8.8.8.8", "2606:4700::1111", "8.8.8.8"))
    assert resolve("hooks.example.com", 443) == ["8.8.8.8", "2606:4700::1111"]
    check_url("https://hooks.example.com/x?y=1")


def test_an_unknown_name_is_refused_and_a_dns_that_does_not_answer_is_unavailable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def unknown(*args: object, **kwargs: object) -> None:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    def not_now(*args: object, **kwargs: object) -> None:
        raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")

    monkeypatch.setattr(socket, "getaddrinfo", unknown)
    with pytest.raises(InvalidInput, match="could not be found"):
        check_url("https://nowhere.example/x")
    monkeypatch.setattr(socket, "getaddrinfo", not_now)
    with pytest.raises(Unavailable):
        check_url("https://nowhere.example/x")


def test_the_settings_allow_a_network_and_nothing_else(settings: SettingsWrapper) -> None:
    settings.WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    assert resolve("127.0.0.1", 80) == ["127.0.0.1"]
    assert resolve("::ffff:127.0.0.1", 80) == ["::ffff:127.0.0.1"]  # the same address, written as IPv6
    with pytest.raises(InvalidInput):
        resolve("127.0.0.2", 80)
    with pytest.raises(InvalidInput):
        resolve("::1", 80)
    settings.WEBHOOK_ALLOWED_NETWORKS = []
    with pytest.raises(InvalidInput):
        resolve("127.0.0.1", 80)


@pytest.mark.parametrize(
    "url",
    [
        "",
        "ftp://8.8.8.8/x",
        "file:///etc/passwd",
        "javascript:alert(1)",
        "https://user:pw@8.8.8.8/x",
        "https://user@8.8.8.8/x",
        "https:///x",
        "https://8.8.8.8:99999/x",
        "https://8.8.8.8/a b",
        "https://8.8.8.8/a\nb",
        "https://10.0.0.1/x",
        "http://[::1]:8000/x",
        "https://8.8.8.8/" + "a" * 2000,
    ],
)
def test_urls_a_webhook_cannot_go_to_are_refused(url: str) -> None:
    with pytest.raises(InvalidInput):
        check_url(url)


def test_a_public_address_and_the_allowed_loopback_pass() -> None:
    check_url("https://8.8.8.8/hooks/tracker")
    check_url("http://127.0.0.1:8999/hook")


def test_an_answer_is_its_status_duration_first_bytes_and_retry_after() -> None:
    with receiving(Reply(429, b"slow down" * 100, {"Retry-After": "120"})) as receiver:
        answer = post(receiver.url("/hook?x=1"), '{"a":1}', {"webhook-id": "msg_1", "content-type": "application/json"})
    assert answer.status == 429
    assert not answer.ok
    assert answer.retry_after == 120
    assert answer.snippet == ("slow down" * 100)[: webhook_http.SNIPPET_BYTES]
    assert answer.ms >= 0
    assert answer.error == ""
    [got] = receiver.got
    assert got.path == "/hook?x=1"
    assert got.body == b'{"a":1}'
    assert got.headers["webhook-id"] == "msg_1"
    assert got.headers["host"] == f"127.0.0.1:{receiver.port}"


def test_a_redirect_is_not_followed_and_is_not_a_success() -> None:
    with receiving(Reply(302, headers={"Location": "http://127.0.0.1:1/elsewhere"}), Reply(204)) as receiver:
        answer = post(receiver.url(), "{}", {})
    assert answer.status == 302
    assert not answer.ok
    assert len(receiver.got) == 1


def test_a_2xx_is_a_success() -> None:
    with receiving(Reply(204)) as receiver:
        assert post(receiver.url(), "{}", {}).ok


def test_a_slow_receiver_times_out(settings: SettingsWrapper) -> None:
    settings.WEBHOOK_TIMEOUT_SECONDS = 1
    with receiving(Reply(204, delay=2.5)) as receiver:
        answer = post(receiver.url(), "{}", {})
    assert answer.status == 0
    assert answer.error == "no answer within 1 s"


def test_nobody_listening_is_no_answer() -> None:
    with receiving() as receiver:
        port = receiver.port
    answer = post(f"http://127.0.0.1:{port}/hook", "{}", {})
    assert answer.status == 0
    assert "could not connect" in answer.error


def test_a_name_checked_at_registration_is_checked_again_at_each_attempt(monkeypatch: pytest.MonkeyPatch) -> None:
    """DNS rebinding: the name led to a public address when registered; now it leads to this machine."""
    monkeypatch.setattr(socket, "getaddrinfo", answers_with("8.8.8.8"))
    check_url("http://hooks.example.com:8999/x")
    monkeypatch.setattr(socket, "getaddrinfo", answers_with("10.0.0.7"))
    answer = post("http://hooks.example.com:8999/x", "{}", {})
    assert answer.status == 0
    assert "10.0.0.7" in answer.error


def test_a_retry_after_date_is_read_in_seconds() -> None:
    assert webhook_http.retry_after_seconds(None) is None
    assert webhook_http.retry_after_seconds("soon") is None
    assert webhook_http.retry_after_seconds("999999") == webhook_http.MAX_RETRY_AFTER_SECONDS
    assert webhook_http.retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT") == 0  # in the past


@pytest.fixture
def certificate(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> str:
    """A self-signed certificate for hooks.example.test (cert and key in one PEM file), trusted by ``post``."""
    from datetime import UTC, datetime, timedelta

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "hooks.example.test")])
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName("hooks.example.test")]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_pem = cert.public_bytes(serialization.Encoding.PEM)
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    path = tmp_path / "hooks.pem"
    path.write_bytes(cert_pem + key_pem)
    ca = tmp_path / "ca.pem"
    ca.write_bytes(cert_pem)
    monkeypatch.setattr(webhook_http, "CA_CERTS", str(ca))
    return str(path)


def test_https_goes_to_the_checked_address_with_the_name_for_sni_host_and_certificate(
    certificate: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(socket, "getaddrinfo", answers_with("127.0.0.1"))
    with receiving(Reply(204), certfile=certificate) as receiver:
        answer = post(receiver.url(host="hooks.example.test", scheme="https"), "{}", {})
        wrong = post(receiver.url(host="other.example.test", scheme="https"), "{}", {})
    assert answer.status == 204
    assert receiver.got[0].headers["host"] == f"hooks.example.test:{receiver.port}"
    assert wrong.status == 0  # the certificate does not name it: nothing sent
    assert wrong.error == "TLS failed (certificate or handshake)"
    assert len(receiver.got) == 1
