"""Ed25519 signatures on publication records.

The private key is read from ``FRESHINDEX_SIGNING_KEY`` (a path to a PEM
file) or ``FRESHINDEX_SIGNING_KEY_PEM`` (the PEM itself); readers pin the
public key with ``FRESHINDEX_PUBLIC_KEY`` (a path to a PEM file).
``freshindex keygen`` makes a pair. A record's signature covers its
canonical JSON without the ``signature`` field; ``keyId`` is the first 16
hex digits of the sha256 of the raw public key.
"""

from __future__ import annotations

import base64
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from freshindex.catalog.manifest import PublicationRecord
from freshindex.core.exceptions import ConfigError


def key_id(public: Ed25519PublicKey) -> str:
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def signing_key() -> Ed25519PrivateKey | None:
    pem = os.environ.get("FRESHINDEX_SIGNING_KEY_PEM")
    path = os.environ.get("FRESHINDEX_SIGNING_KEY")
    if not pem and not path:
        return None
    try:
        data = pem.encode() if pem else Path(path or "").read_bytes()
        key = serialization.load_pem_private_key(data, password=None)
    except (OSError, ValueError, TypeError) as err:
        raise ConfigError(
            "the signing key (FRESHINDEX_SIGNING_KEY[_PEM]) cannot be read as a PEM private key"
        ) from err
    if not isinstance(key, Ed25519PrivateKey):
        raise ConfigError(
            "the signing key must be an Ed25519 key (make one with `freshindex keygen`)"
        )
    return key


def pinned_public_key() -> Ed25519PublicKey | None:
    path = os.environ.get("FRESHINDEX_PUBLIC_KEY")
    if not path:
        return None
    try:
        key = serialization.load_pem_public_key(Path(path).read_bytes())
    except (OSError, ValueError) as err:
        raise ConfigError(
            f"FRESHINDEX_PUBLIC_KEY ({path}) cannot be read as a PEM public key"
        ) from err
    if not isinstance(key, Ed25519PublicKey):
        raise ConfigError("FRESHINDEX_PUBLIC_KEY must be an Ed25519 public key")
    return key


def sign(record: PublicationRecord, key: Ed25519PrivateKey | None) -> PublicationRecord:
    if key is None:
        return record
    unsigned = record.model_copy(update={"keyId": key_id(key.public_key()), "signature": None})
    signature = base64.b64encode(key.sign(unsigned.signed_payload())).decode()
    return unsigned.model_copy(update={"signature": signature})


@dataclass(frozen=True)
class SignatureCheck:
    ok: bool
    reason: str


def check(record: PublicationRecord, public: Ed25519PublicKey | None) -> SignatureCheck:
    if public is None:
        return SignatureCheck(
            False, "no public key pinned (FRESHINDEX_PUBLIC_KEY): record signatures unverified"
        )
    if not record.signature:
        return SignatureCheck(False, f"publication record {record.seq} is unsigned")
    if record.keyId != key_id(public):
        return SignatureCheck(
            False, f"publication record {record.seq} is signed by another key ({record.keyId})"
        )
    try:
        public.verify(base64.b64decode(record.signature), record.signed_payload())
    except (InvalidSignature, ValueError):
        return SignatureCheck(False, f"publication record {record.seq} has a bad signature")
    return SignatureCheck(True, "signed by the pinned key")


def generate(out: Path) -> tuple[Path, Path, str]:
    """Write a new key pair; the private key is readable by its owner only."""
    out.mkdir(parents=True, exist_ok=True)
    private = Ed25519PrivateKey.generate()
    priv_path, pub_path = out / "freshindex-signing.pem", out / "freshindex-signing.pub.pem"
    if priv_path.exists():
        raise ConfigError(f"{priv_path} exists already; not overwriting a signing key")
    fd = os.open(priv_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(
            private.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
    pub_path.write_bytes(
        private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    return priv_path, pub_path, key_id(private.public_key())
