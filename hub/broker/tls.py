"""The room broker's own certificate authority: ``bghub broker-config --tls`` without ``--cert``.

Tables send their broker password at every connection. On the venue's Wi-Fi, anyone who can
pose as the broker's address (a spoofed ARP reply, a rogue access point) would read it from a
plain connection. With TLS and the room's CA in each table's sealed configuration, a table talks
only to the broker whose certificate that CA signed, so an impostor gets a failed handshake and
never the password.

``broker-config --tls`` makes, once, in ``OUT/tls/``: ``ca.pem`` (the CA the hub hands to every
enrolled table), ``ca.key`` (kept to issue a new server certificate when the broker's address
changes), ``server.pem`` and ``server.key`` (Mosquitto's TLS listener; named for ``--host`` and
``--bind``). ECDSA P-256, which every OpenSSL that Mosquitto and Python link to supports. A later
run keeps them (enrolled tables trust that CA), and issues a new server certificate from the
same CA only when the names changed; ``--force`` makes a new CA (every table must then be
enrolled again).
"""

from __future__ import annotations

import datetime
import ipaddress
from collections.abc import Callable, Sequence
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

TLS_DIR = "tls"
CA_CERT, CA_KEY, SERVER_CERT, SERVER_KEY = "ca.pem", "ca.key", "server.pem", "server.key"
CA_YEARS = 10
SERVER_YEARS = 5

Writer = Callable[[Path, str, bool], None]


def key_pem(key: ec.EllipticCurvePrivateKey) -> str:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def cert_pem(cert: x509.Certificate) -> str:
    return cert.public_bytes(serialization.Encoding.PEM).decode()


def _san(names: Sequence[str]) -> x509.SubjectAlternativeName:
    entries: list[x509.GeneralName] = []
    for name in dict.fromkeys(n for n in names if n):
        try:
            entries.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            entries.append(x509.DNSName(name))
    return x509.SubjectAlternativeName(entries)


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=1)


def make_ca(event: str) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"Smart table broker CA, event {event}")])
    start = _now()
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(start + datetime.timedelta(days=365 * CA_YEARS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=False,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return cert, key


def make_server(
    ca: x509.Certificate, ca_key: ec.EllipticCurvePrivateKey, names: Sequence[str]
) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    start = _now()
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[0])]))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(start + datetime.timedelta(days=365 * SERVER_YEARS))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(_san(names), critical=False)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    return cert, key


def _names_of(cert: x509.Certificate) -> list[str]:
    try:
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except x509.ExtensionNotFound:
        return []
    return [str(v) for v in san.get_values_for_type(x509.IPAddress)] + list(
        san.get_values_for_type(x509.DNSName)
    )


def ensure(out: Path, event: str, names: Sequence[str], write: Writer, *, renew_ca: bool = False) -> Path:
    """The room's CA and the broker's certificate in ``out/tls`` (made or kept); returns the dir.
    ``write(path, text, broker_reads)`` writes a private file (the broker must read its key)."""
    tls = out / TLS_DIR
    tls.mkdir(mode=0o700, parents=True, exist_ok=True)
    wanted = list(dict.fromkeys(n for n in names if n))
    if renew_ca or not (tls / CA_CERT).is_file() or not (tls / CA_KEY).is_file():
        ca, ca_key = make_ca(event)
        write(tls / CA_KEY, key_pem(ca_key), False)
        write(tls / CA_CERT, cert_pem(ca), True)
        stale = True
    else:
        ca = x509.load_pem_x509_certificate((tls / CA_CERT).read_bytes())
        loaded = serialization.load_pem_private_key((tls / CA_KEY).read_bytes(), None)
        assert isinstance(loaded, ec.EllipticCurvePrivateKey), "the room's CA key is not ECDSA"
        ca_key = loaded
        try:
            server = x509.load_pem_x509_certificate((tls / SERVER_CERT).read_bytes())
            stale = sorted(_names_of(server)) != sorted(wanted) or server.issuer != ca.subject
        except (OSError, ValueError):
            stale = True
    if stale or not (tls / SERVER_KEY).is_file():
        cert, key = make_server(ca, ca_key, wanted)
        write(tls / SERVER_KEY, key_pem(key), True)
        write(tls / SERVER_CERT, cert_pem(cert), True)
    return tls
