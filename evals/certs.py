"""``kernelpilot eval certs DIR``: a private certificate authority and one member certificate for a Dask eval
cluster, so the scheduler, the workers and the driver can speak mutually authenticated TLS.

Every member (scheduler, ``eval worker``, ``eval run --cluster``) presents ``member.pem``/``member.key`` and trusts
only ``ca.pem``; a peer without a certificate signed by that CA is refused at the handshake. Keep ``ca.key`` off the
cluster (it signs new members); ``member.key`` must be readable by the cluster's user only.
"""

from __future__ import annotations

import datetime
import ipaddress
from pathlib import Path

from tools.errors import InputError
from tools.files import write_atomic

FILES = ("ca.pem", "ca.key", "member.pem", "member.key")


def make_certs(out: Path, hosts: list[str], days: int = 365, *, overwrite: bool = False) -> dict[str, Path]:
    """Write ``ca.pem``, ``ca.key``, ``member.pem`` and ``member.key`` into ``out``; the member certificate names
    ``hosts`` (plus localhost and 127.0.0.1) and serves both as a TLS server and client."""
    if out.exists() and not out.is_dir():
        raise InputError(f"{out} is a file", hint="give a folder for the certificates")
    existing = [f for f in FILES if (out / f).exists()]
    if existing and not overwrite:
        raise InputError(
            f"{out} already holds {', '.join(existing)}: refusing to replace a cluster's certificates",
            hint="give an empty folder, or --force to replace them (every member then needs the new files)",
        )
    pems = issue_certs(hosts, days)
    out.mkdir(parents=True, exist_ok=True)
    for name in ("ca.key", "member.key", "ca.pem", "member.pem"):  # keys first: a member never sees a cert alone
        write_atomic(out / name, pems[name], mode=0o600 if name.endswith(".key") else 0o644)
    return {f: out / f for f in FILES}


def throwaway_security():
    """A ``distributed.security.Security`` for a cluster the harness starts for itself (``--cluster local:N``, its
    own scheduler): a fresh CA and member certificate held in memory (Dask writes the key into a private temporary
    folder only while it loads it), TLS required on every role, so a client or worker without this certificate is
    refused at the handshake. The CA's key is dropped: nothing else can ever be signed into the cluster."""
    from distributed.security import Security

    pems = {k: v.decode() for k, v in issue_certs(["127.0.0.1"], days=7).items()}
    roles = ("client", "scheduler", "worker")
    return Security(
        tls_ca_file=pems["ca.pem"],
        **{f"tls_{r}_cert": pems["member.pem"] for r in roles},
        **{f"tls_{r}_key": pems["member.key"] for r in roles},
        require_encryption=True,
    )


def issue_certs(hosts: list[str], days: int = 365) -> dict[str, bytes]:
    """PEM bytes of a new CA (``ca.pem``, ``ca.key``) and of one member certificate it signs (``member.pem``,
    ``member.key``) naming ``hosts`` plus localhost and 127.0.0.1, usable as TLS server and client."""
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
    except ImportError as exc:
        raise InputError(
            "eval certs needs the cryptography package", hint="pip install 'kernelpilot[cluster]'"
        ) from exc
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kernelpilot eval cluster CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=days))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(True, False, False, False, False, True, True, False, False), critical=True
        )  # digital_signature, key_cert_sign, crl_sign
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    names: list[x509.GeneralName] = []
    for h in dict.fromkeys([*hosts, "localhost", "127.0.0.1"]):
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(h)))
        except ValueError:
            names.append(x509.DNSName(h))
    member = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hosts[0] if hosts else "localhost")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=days))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    pem = serialization.Encoding.PEM
    no_pw = serialization.NoEncryption()
    pkcs8 = serialization.PrivateFormat.PKCS8
    return {
        "ca.pem": ca.public_bytes(pem),
        "ca.key": ca_key.private_bytes(pem, pkcs8, no_pw),
        "member.pem": member.public_bytes(pem),
        "member.key": key.private_bytes(pem, pkcs8, no_pw),
    }
