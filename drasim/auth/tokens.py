"""Bearer tokens: the admin token `drasim serve` generates and kube-apiserver's static token file.

k8s: staging/src/k8s.io/apiserver/pkg/authentication/token/tokenfile/tokenfile.go (NewCSV: CSV
records `token,user,uid[,"group1,group2"]`, at least 3 columns, an empty token skipped, a later
duplicate wins), request/bearertoken/bearertoken.go (`Authorization: Bearer <token>`, the scheme
case-insensitive, an empty token is no token), and group/authenticated_group_adder.go (every
authenticated user is also in system:authenticated).
"""
from __future__ import annotations

import csv
import io
import secrets
from dataclasses import dataclass, field

from drasim.errors import InputError

ADMIN_USER = "drasim-admin"
MASTERS = "system:masters"
AUTHENTICATED = "system:authenticated"
UNAUTHENTICATED = "system:unauthenticated"
ANONYMOUS = "system:anonymous"


@dataclass(frozen=True)
class User:
    name: str
    uid: str = ""
    groups: tuple[str, ...] = field(default_factory=tuple)


def new_token() -> str:
    """A random token (kube-apiserver leaves generating them to the operator; 256 bits here)."""
    return secrets.token_hex(32)


def parse_token_csv(text: str, path: str) -> dict[str, User]:
    """token → user of a static token file; a malformed one is an error naming the file and record."""
    tokens: dict[str, User] = {}
    try:
        records = list(csv.reader(io.StringIO(text), skipinitialspace=False, strict=True))
    except csv.Error as e:
        raise InputError(f"--token-auth-file {path}: {e}") from None
    for number, record in enumerate(records, 1):
        if not record:
            continue   # Go's csv reader skips blank lines
        if len(record) < 3:
            # k8s: tokenfile.NewCSV's message
            raise InputError(f"--token-auth-file {path}: record {number}: token file '{path}' must have at least "
                             f"3 columns (token, user name, user uid), found {len(record)}")
        token, name, uid = record[0], record[1], record[2]
        if token == "":
            continue   # k8s: "empty token has been found in token file" (a warning, the record skipped)
        groups = tuple(record[3].split(",")) if len(record) >= 4 else ()
        tokens[token] = User(name, uid, groups)
    return tokens


def read_token_file(path: str) -> dict[str, User]:
    try:
        with open(path, encoding="utf-8", newline="") as f:
            text = f.read()
    except OSError as e:
        raise InputError(f"--token-auth-file {path}: cannot read: {e.strerror or e}") from None
    return parse_token_csv(text, path)


def bearer_token(header: str | None) -> str | None:
    """The token of an Authorization header, or None when there is no bearer token."""
    if not header:
        return None
    parts = header.strip().split(" ")
    if len(parts) < 2 or parts[0].lower() != "bearer":
        return None
    token = parts[1]
    return token or None


def with_authenticated_group(user: User) -> User:
    if AUTHENTICATED in user.groups:
        return user
    return User(user.name, user.uid, (*user.groups, AUTHENTICATED))


def anonymous() -> User:
    # k8s: authentication/request/anonymous — system:anonymous in system:unauthenticated
    return User(ANONYMOUS, "", (UNAUTHENTICATED,))
