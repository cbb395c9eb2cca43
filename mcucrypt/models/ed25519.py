# SPDX-License-Identifier: MIT
"""Ed25519 (RFC 8032, section 5.1) on Python integers: the differential oracle of crypto/ed25519.

Written from the RFC's text: twisted Edwards curve -x^2 + y^2 = 1 + d x^2 y^2 over GF(2^255 - 19), points
in extended coordinates (X : Y : Z : T), the RFC's addition formulas, SHA-512 from hashlib, scalars
mod L. Nothing here shares code or representation with the C under test.

Verification rules (docs/ed25519.md, "Verification rules"), the ones the C implements:
- the signature is exactly 64 bytes, the public key exactly 32;
- S must be canonical (S < L, RFC 8032 section 5.1.7 step 1);
- A and R must decode (RFC 8032 section 5.1.3: y < p, and x = 0 with the sign bit set fails);
- A of small order ([8]A = identity) is refused (as libsodium does: a key anyone can sign for);
- the check is cofactorless: [S]B = R + [k]A, compared as the encoding of [S]B - [k]A with R's 32
  bytes, so a non-canonical R (y >= p, or x = 0 with the sign bit) never matches.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = -121665 * pow(121666, P - 2, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)
SEED_BYTES = 32
PK_BYTES = 32
SK_BYTES = 64          # the implementations' secret key: seed || public key (the RFC's private key is the seed)
SIG_BYTES = 64


def sha512(data: bytes) -> bytes:
    return hashlib.sha512(data).digest()


def point_add(p1: tuple, p2: tuple) -> tuple:
    """RFC 8032 section 5.1.4, extended coordinates (a = -1)."""
    x1, y1, z1, t1 = p1
    x2, y2, z2, t2 = p2
    a = (y1 - x1) * (y2 - x2) % P
    b = (y1 + x1) * (y2 + x2) % P
    c = 2 * t1 * t2 * D % P
    dd = 2 * z1 * z2 % P
    e, f, g, h = b - a, dd - c, dd + c, b + a
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def point_mul(s: int, pt: tuple) -> tuple:
    q = (0, 1, 1, 0)
    while s > 0:
        if s & 1:
            q = point_add(q, pt)
        pt = point_add(pt, pt)
        s >>= 1
    return q


def point_equal(p1: tuple, p2: tuple) -> bool:
    x1, y1, z1, _ = p1
    x2, y2, z2, _ = p2
    return (x1 * z2 - x2 * z1) % P == 0 and (y1 * z2 - y2 * z1) % P == 0


def recover_x(y: int, sign: int) -> int | None:
    """RFC 8032 section 5.1.3 steps 2-4; None where decoding fails."""
    if y >= P:
        return None
    x2 = (y * y - 1) * pow(D * y * y + 1, P - 2, P) % P
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P != 0:
        x = x * SQRT_M1 % P
    if (x * x - x2) % P != 0:
        return None
    if (x & 1) != sign:
        x = P - x
    return x


BASE_Y = 4 * pow(5, P - 2, P) % P
BASE = (recover_x(BASE_Y, 0), BASE_Y, 1, recover_x(BASE_Y, 0) * BASE_Y % P)
IDENTITY = (0, 1, 1, 0)


def encode_point(pt: tuple) -> bytes:
    x, y, z, _ = pt
    zi = pow(z, P - 2, P)
    x, y = x * zi % P, y * zi % P
    return int.to_bytes(y | ((x & 1) << 255), 32, "little")


def decode_point(s: bytes) -> tuple | None:
    if len(s) != 32:
        return None
    y = int.from_bytes(s, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    x = recover_x(y, sign)
    if x is None:
        return None
    return (x, y, 1, x * y % P)


def has_small_order(pt: tuple) -> bool:
    return point_equal(point_mul(8, pt), IDENTITY)


def secret_expand(seed: bytes) -> tuple[int, bytes]:
    if len(seed) != SEED_BYTES:
        raise ValueError("an Ed25519 private key (seed) is 32 bytes")
    h = sha512(seed)
    a = int.from_bytes(h[:32], "little")
    a &= (1 << 254) - 8
    a |= 1 << 254
    return a, h[32:]


def public_key(seed: bytes) -> bytes:
    a, _ = secret_expand(seed)
    return encode_point(point_mul(a, BASE))


def keygen(seed: bytes) -> tuple[bytes, bytes]:
    """(pk, sk): sk = seed || pk, the 64-byte secret key the implementations take."""
    pk = public_key(seed)
    return pk, seed + pk


def sign(sk: bytes, msg: bytes, ctx: bytes = b"", rnd: bytes | None = None) -> bytes:
    """RFC 8032 section 5.1.6 (pure Ed25519: no context, deterministic; sk is seed || pk, or the 32-byte seed)."""
    if ctx or rnd:
        raise ValueError("pure Ed25519 has no context and no randomness")
    seed = sk[:32]
    a, prefix = secret_expand(seed)
    pk = encode_point(point_mul(a, BASE))
    r = int.from_bytes(sha512(prefix + msg), "little") % L
    rs = encode_point(point_mul(r, BASE))
    k = int.from_bytes(sha512(rs + pk + msg), "little") % L
    s = (r + k * a) % L
    return rs + int.to_bytes(s, 32, "little")


def verify(pk: bytes, msg: bytes, sig: bytes, ctx: bytes = b"") -> bool:
    """RFC 8032 section 5.1.7 with the rules of the module docstring (cofactorless)."""
    if ctx or len(pk) != PK_BYTES or len(sig) != SIG_BYTES:
        return False
    a_pt = decode_point(pk)
    if a_pt is None or has_small_order(a_pt):
        return False
    s = int.from_bytes(sig[32:], "little")
    if s >= L:
        return False
    if decode_point(sig[:32]) is None:
        return False
    k = int.from_bytes(sha512(sig[:32] + pk + msg), "little") % L
    neg_a = (P - a_pt[0], a_pt[1], 1, (P - a_pt[3]) % P)
    return encode_point(point_add(point_mul(s, BASE), point_mul(k, neg_a))) == sig[:32]


# -- vector files ----------------------------------------------------------------------------------

def read_vectors(path: Path) -> list[dict]:
    """Records {op, seed, pk, sk, msg, sig, valid, where} (the signature kind's form) from
    - RFC 8032 section 7.1's tests, as a text file of `SECRET KEY:` / `PUBLIC KEY:` / `MESSAGE (length N
      bytes):` / `SIGNATURE:` blocks (hex, possibly over several lines, `# ` comments);
    - Wycheproof's ed25519_test.json (EddsaVerify: every test a verify record, 'valid' or 'invalid').
    A keygen and a sign record come with every RFC test, a verify record with each."""
    path = Path(path)
    if path.suffix == ".json":
        return _read_wycheproof(path)
    return _read_rfc8032(path)


def _read_rfc8032(path: Path) -> list[dict]:
    out: list[dict] = []
    fields: dict[str, str] = {}
    name, current = "", None
    lines = path.read_text().splitlines()

    def flush() -> None:
        if not fields:
            return
        where = f"{path.name}: {name}"
        seed, pk = bytes.fromhex(fields["SECRET KEY"]), bytes.fromhex(fields["PUBLIC KEY"])
        msg, sig = bytes.fromhex(fields["MESSAGE"]), bytes.fromhex(fields["SIGNATURE"])
        if fields.get("ALGORITHM") != "Ed25519":
            raise ValueError(f"{where}: algorithm {fields.get('ALGORITHM')!r}, expected Ed25519")
        if "LENGTH" in fields and len(msg) != int(fields["LENGTH"]):
            raise ValueError(f"{where}: message of {len(msg)} bytes, the file says {fields['LENGTH']}")
        out.append({"op": "keygen", "seed": seed, "pk": pk, "sk": seed + pk, "where": where})
        out.append({"op": "sign", "sk": seed + pk, "pk": pk, "msg": msg, "sig": sig, "where": where})
        out.append({"op": "verify", "pk": pk, "msg": msg, "sig": sig, "valid": True, "where": where})
        fields.clear()

    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("-----TEST"):
            flush()
            name, current = line.strip("- "), None
            continue
        if ":" in line and line.split(":")[0].split(" (")[0] in ("SECRET KEY", "PUBLIC KEY", "MESSAGE", "SIGNATURE"):
            head, rest = line.split(":", 1)
            current = head.split(" (")[0]
            if "(length" in head:
                fields["LENGTH"] = head.split("(length")[1].split()[0]
            fields[current] = rest.strip()
            continue
        if line == "ALGORITHM:":
            current = "ALGORITHM"
            fields[current] = ""
            continue
        if current is None:
            raise ValueError(f"{path}: unexpected line {raw!r}")
        fields[current] += line
    flush()
    return out


def _read_wycheproof(path: Path) -> list[dict]:
    doc = json.loads(path.read_text())
    out: list[dict] = []
    for group in doc["testGroups"]:
        key = group.get("publicKey", group.get("key", {}))
        if key.get("curve") not in ("edwards25519", "ED25519"):
            raise ValueError(f"{path}: test group for {key.get('curve')!r}, expected edwards25519")
        pk = bytes.fromhex(key["pk"])
        for t in group["tests"]:
            if t["result"] == "acceptable":
                raise ValueError(f"{path}: tcId {t['tcId']} is 'acceptable': no verdict to check")
            out.append({"op": "verify", "pk": pk, "msg": bytes.fromhex(t["msg"]), "sig": bytes.fromhex(t["sig"]),
                        "valid": t["result"] == "valid",
                        "where": f"{path.name}: tcId {t['tcId']} ({t['comment']})"})
    if len(out) != doc["numberOfTests"]:
        raise ValueError(f"{path}: {len(out)} tests read, the file says {doc['numberOfTests']}")
    return out


# -- malformed inputs --------------------------------------------------------------------------------

def small_order_points() -> list[tuple]:
    """The 8 points of order dividing 8 (the torsion subgroup), from [L]P of a point P whose [L]P has
    order 8: its multiples 0..7."""
    y = 2
    while True:
        x = recover_x(y, 0)
        if x is not None:
            t = point_mul(L, (x, y, 1, x * y % P))
            if not point_equal(point_mul(4, t), IDENTITY):
                return [point_mul(k, t) for k in range(8)]
        y += 1


def _enc_y(y: int, sign: int = 0) -> bytes:
    return int.to_bytes(y | (sign << 255), 32, "little")


def malformed() -> list[dict]:
    """Verify records (valid False) the implementations must refuse (docs/ed25519.md, "Verification
    rules"); each 'where' says what is wrong. The message is b"abc" unless said."""
    msg = b"abc"
    out: list[dict] = []
    # small-order public keys (all eight, canonical): with R = the identity and S = 0 a verifier without the
    # check accepts whenever [k]A is the identity (always for A = the identity); and R = A, S = 0
    for n, pt in enumerate(small_order_points()):
        a = encode_point(pt)
        for r in (encode_point(IDENTITY), a):
            out.append({"op": "verify", "pk": a, "msg": msg, "sig": r + bytes(32), "valid": False,
                        "where": f"small-order public key {n} ({a.hex()}), R = {r.hex()[:8]}..., S = 0"})
    # public keys that do not decode: y >= p (non-canonical: p, p + 1 = the identity's y plus p), x = 0
    # with the sign bit set (the identity and (0, -1)), a y with no x on the curve
    seed = bytes(range(32))
    pk, sk = keygen(seed)
    sig = sign(sk, msg)
    not_on_curve = next(y for y in range(2, 100) if recover_x(y, 0) is None)
    for bad, why in ((_enc_y(P), "y = p (non-canonical)"), (_enc_y(P + 1), "y = p + 1 (non-canonical identity)"),
                     (_enc_y(1, 1), "the identity with the sign bit set (x = 0)"),
                     (_enc_y(P - 1, 1), "(0, -1) with the sign bit set (x = 0)"),
                     (_enc_y(not_on_curve), f"y = {not_on_curve}: no x on the curve")):
        out.append({"op": "verify", "pk": bad, "msg": msg, "sig": sig, "valid": False, "where": f"public key {why}"})
    # non-canonical S: S + L encodes the same scalar (a verifier reducing S accepts it)
    s = int.from_bytes(sig[32:], "little")
    for k in (1, 2):
        if s + k * L < 2**256:
            out.append({"op": "verify", "pk": pk, "msg": msg, "sig": sig[:32] + int.to_bytes(s + k * L, 32, "little"),
                        "valid": False, "where": f"S + {k}L (non-canonical S)"})
    out.append({"op": "verify", "pk": pk, "msg": msg, "sig": sig[:32] + int.to_bytes(L, 32, "little"),
                "valid": False, "where": "S = L"})
    # non-canonical and undecodable R: y + p for small y, R's sign bit flipped (the negated point), x = 0
    # with the sign bit
    r_y = int.from_bytes(sig[:32], "little")
    for bad, why in ((_enc_y(P + 1), "R = the identity's y + p (non-canonical)"),
                     (int.to_bytes(r_y ^ (1 << 255), 32, "little"), "R's sign bit flipped"),
                     (_enc_y(1, 1), "R = the identity with the sign bit set (x = 0)"),
                     (_enc_y(not_on_curve), f"R with y = {not_on_curve}: no x on the curve")):
        out.append({"op": "verify", "pk": pk, "msg": msg, "sig": bad + sig[32:], "valid": False, "where": why})
    return out
