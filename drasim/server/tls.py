"""A serving certificate for `drasim serve`: a throwaway CA and a leaf for 127.0.0.1 / localhost.

Why TLS: client-go puts a kubeconfig's bearer token on requests over TLS only (clientcmd
getUserIdentificationPartialConfig; kubernetes/kubectl#744), so kubectl would send no
credentials to a plain-http server. kube-apiserver likewise generates a self-signed serving
certificate when none is given (staging/src/k8s.io/apiserver/pkg/server/options/serving.go
MaybeDefaultWithSelfSignedCerts); here the CA goes into the kubeconfig's
certificate-authority-data so clients verify it. A CA and a separate leaf (with key identifiers)
because Python's ssl (VERIFY_X509_STRICT) refuses a bare self-signed leaf.
"""
from __future__ import annotations

import datetime
import ipaddress
import ssl
import tempfile
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def generate(hosts: tuple[str, ...] = ("127.0.0.1", "localhost")) -> tuple[bytes, bytes, bytes]:
    """(CA certificate PEM, server certificate chain PEM, server key PEM)."""
    now = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=5)
    later = now + datetime.timedelta(days=365)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_ski = x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key())
    ca = (x509.CertificateBuilder().subject_name(_name("drasim-ca")).issuer_name(_name("drasim-ca"))
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(now).not_valid_after(later)
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                       content_commitment=False, key_encipherment=False, data_encipherment=False,
                                       key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
          .add_extension(ca_ski, critical=False)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    sans = [x509.IPAddress(ipaddress.ip_address(h)) if h[0].isdigit() else x509.DNSName(h) for h in hosts]
    leaf = (x509.CertificateBuilder().subject_name(_name("drasim-serve")).issuer_name(ca.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now).not_valid_after(later)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_encipherment=False, key_cert_sign=False,
                                         crl_sign=False, content_commitment=False, data_encipherment=False,
                                         key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.SubjectAlternativeName(sans), critical=False)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ca_ski), critical=False)
            .sign(ca_key, hashes.SHA256()))
    pem = serialization.Encoding.PEM
    key_pem = key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    return ca.public_bytes(pem), leaf.public_bytes(pem) + ca.public_bytes(pem), key_pem


def server_context(chain_pem: bytes, key_pem: bytes) -> ssl.SSLContext:
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    with tempfile.TemporaryDirectory() as d:   # ssl loads certificates from files only
        cert, key = Path(d) / "tls.crt", Path(d) / "tls.key"
        cert.write_bytes(chain_pem)
        key.write_bytes(key_pem)
        key.chmod(0o600)
        ctx.load_cert_chain(cert, key)
    return ctx
