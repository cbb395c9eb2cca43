# SPDX-License-Identifier: MIT
"""ECDSA and ECDH on NIST P-256 (secp256r1) with SHA-256, on Python integers: the differential oracle.

Written from the standards' text: the curve y^2 = x^3 - 3x + b over GF(p) and its base point (FIPS 186-5 /
SP 800-186 section 3.2.1.3), point encodings and public-key validation (SEC 1 v2 sections 2.3.3, 2.3.4,
3.2.2.1), ECDSA signature generation and verification (FIPS 186-5 sections 6.4.1, 6.4.2), deterministic
nonces (RFC 6979 section 3.2, HMAC-SHA-256) and the ECC CDH primitive (SP 800-56A section 5.7.1.2).
Affine coordinates and Python's big integers: nothing here shares code or representation with the C.

The contract the C implements (crypto/p256/META.yml, docs/p256.md):
  keygen(seed)            seed = d, 32 bytes big-endian, 1 <= d < n (else ValueError: the C refuses, -1);
                          returns (pk, sk): pk the uncompressed point 04 || X || Y (65 bytes), sk = d
  sign(sk, msg, rnd=None) the message is hashed here (SHA-256) and e = its 256 bits (FIPS 186-5 6.4.1);
                          rnd None or 32 zero bytes: k by RFC 6979 (deterministic); else k = rnd,
                          refused (ValueError) if 0 or >= n (FIPS 186-5 A.3.2's rejection sampling: the
                          caller draws again). Signature r || s, 64 bytes big-endian
  verify(pk, msg, sig)    pk uncompressed (65) or compressed (33, 02/03 || X); False for anything malformed
  ecdh(sk, pk)            the x-coordinate of d * Q (32 bytes), Q validated first (ValueError if not)
"""
from __future__ import annotations

import hashlib
import hmac
import re
from pathlib import Path

P = 2**256 - 2**224 + 2**192 + 2**96 - 1
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
A = P - 3
B = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
GX = 0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296
GY = 0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5
G = (GX, GY)
INF = None          # the point at infinity

SK_BYTES, PK_BYTES, PK_COMPRESSED_BYTES, SIG_BYTES = 32, 65, 33, 64


# -- the group --------------------------------------------------------------------------------------

def on_curve(pt) -> bool:
    if pt is INF:
        return False
    x, y = pt
    return 0 <= x < P and 0 <= y < P and (y * y - (x * x * x + A * x + B)) % P == 0


def add(p1, p2):
    """Affine addition (SEC 1 section 2.2.1), infinity and doubling included."""
    if p1 is INF:
        return p2
    if p2 is INF:
        return p1
    (x1, y1), (x2, y2) = p1, p2
    if x1 == x2:
        if (y1 + y2) % P == 0:
            return INF
        lam = (3 * x1 * x1 + A) * pow(2 * y1, -1, P) % P
    else:
        lam = (y2 - y1) * pow(x2 - x1, -1, P) % P
    x3 = (lam * lam - x1 - x2) % P
    return x3, (lam * (x1 - x3) - y1) % P


def mul(k: int, pt):
    """k * pt by double-and-add from the top bit (public-data oracle: not constant time)."""
    out = INF
    for i in reversed(range(k.bit_length())):
        out = add(out, out)
        if (k >> i) & 1:
            out = add(out, pt)
    return out


# -- encodings (SEC 1 2.3.3 / 2.3.4) and validation (SEC 1 3.2.2.1) ----------------------------------

def encode_point(pt, compressed: bool = False) -> bytes:
    x, y = pt
    if compressed:
        return bytes([2 | (y & 1)]) + x.to_bytes(32, "big")
    return b"\x04" + x.to_bytes(32, "big") + y.to_bytes(32, "big")


def decode_point(data: bytes):
    """A public key: 04 || X || Y or 02/03 || X; ValueError for any other length or prefix, a coordinate
    >= p, a point off the curve (the identity has no encoding here: the one-byte 00 is refused). P-256
    has cofactor 1, so a point on the curve is in the group of order n (SEC 1 3.2.2.1 step 4 is implied)."""
    if len(data) == PK_BYTES and data[0] == 4:
        x, y = int.from_bytes(data[1:33], "big"), int.from_bytes(data[33:], "big")
        if x >= P or y >= P or not on_curve((x, y)):
            raise ValueError("the point is not on P-256")
        return x, y
    if len(data) == PK_COMPRESSED_BYTES and data[0] in (2, 3):
        x = int.from_bytes(data[1:], "big")
        if x >= P:
            raise ValueError("x >= p")
        rhs = (x * x * x + A * x + B) % P
        y = pow(rhs, (P + 1) // 4, P)          # p = 3 mod 4
        if y * y % P != rhs:
            raise ValueError("x is not the abscissa of a point on P-256")
        if (y & 1) != (data[0] & 1):
            y = P - y
        return x, y
    raise ValueError("a P-256 public key is 65 bytes (04 || X || Y) or 33 (02/03 || X)")


# -- ECDSA -------------------------------------------------------------------------------------------

def scalar_from(data: bytes) -> int:
    if len(data) != SK_BYTES:
        raise ValueError("a P-256 scalar is 32 bytes")
    d = int.from_bytes(data, "big")
    if not 0 < d < N:
        raise ValueError("the scalar is 0 or >= n")
    return d


def keygen(seed: bytes) -> tuple[bytes, bytes]:
    d = scalar_from(seed)
    return encode_point(mul(d, G)), d.to_bytes(32, "big")


def hash_to_int(msg: bytes) -> int:
    """e: SHA-256 of the message, its 256 bits as an integer (n has 256 bits: no truncation)."""
    return int.from_bytes(hashlib.sha256(msg).digest(), "big")


def rfc6979_k(d: int, e: int) -> int:
    """RFC 6979 section 3.2 with HMAC-SHA-256, qlen = 256: bits2octets(h1) = (e mod n), 32 bytes."""
    x = d.to_bytes(32, "big")
    h1 = (e % N).to_bytes(32, "big")
    v, key = b"\x01" * 32, b"\x00" * 32
    key = hmac.new(key, v + b"\x00" + x + h1, hashlib.sha256).digest()
    v = hmac.new(key, v, hashlib.sha256).digest()
    key = hmac.new(key, v + b"\x01" + x + h1, hashlib.sha256).digest()
    v = hmac.new(key, v, hashlib.sha256).digest()
    while True:
        v = hmac.new(key, v, hashlib.sha256).digest()
        k = int.from_bytes(v, "big")
        if 0 < k < N:
            return k
        key = hmac.new(key, v + b"\x00", hashlib.sha256).digest()
        v = hmac.new(key, v, hashlib.sha256).digest()


def sign_digest(d: int, e: int, k: int) -> bytes | None:
    """FIPS 186-5 6.4.1 steps 5..: None where r or s is 0 (the caller takes another k)."""
    r = mul(k, G)[0] % N
    s = pow(k, -1, N) * (e + r * d) % N
    if r == 0 or s == 0:
        return None
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")


def sign(sk: bytes, msg: bytes, ctx: bytes = b"", rnd: bytes | None = None) -> bytes:
    if ctx:
        raise ValueError("ECDSA has no context string")
    d, e = scalar_from(sk), hash_to_int(msg)
    k = rfc6979_k(d, e) if rnd is None or not any(rnd) else scalar_from(rnd)
    sig = sign_digest(d, e, k)
    if sig is None:   # probability ~2^-255: RFC 6979 would continue its loop; refused here
        raise ValueError("r or s is zero for this k")
    return sig


def verify_digest(q, e: int, sig: bytes) -> bool:
    if len(sig) != SIG_BYTES:
        return False
    r, s = int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big")
    if not (0 < r < N and 0 < s < N):
        return False
    w = pow(s, -1, N)
    pt = add(mul(e * w % N, G), mul(r * w % N, q))
    return pt is not INF and pt[0] % N == r


def verify(pk: bytes, msg: bytes, sig: bytes, ctx: bytes = b"") -> bool:
    if ctx:
        return False
    try:
        q = decode_point(pk)
    except ValueError:
        return False
    return verify_digest(q, hash_to_int(msg), sig)


def malformed() -> list[dict]:
    """Verify records the implementations must refuse (the signature kind runs them; the P-256 key is
    RFC 6979 A.2.5's): r or s zero or >= n, public keys off the curve, with a coordinate >= p, the
    identity's encoding, bad prefixes and lengths; the message and signature otherwise valid."""
    d = bytes.fromhex("C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721")
    pk, msg = keygen(d)[0], b"sample"
    sig = sign(d, msg)
    n, p = N.to_bytes(32, "big"), P.to_bytes(32, "big")
    x_bad = next(x for x in range(1, 100) if not _has_point(x)).to_bytes(32, "big")
    recs = [("r = 0", sig, bytes(32) + sig[32:]), ("s = 0", sig, sig[:32] + bytes(32)),
            ("r = n", sig, n + sig[32:]), ("s = n", sig, sig[:32] + n),
            ("r = r + n (x >= n reduced)", sig, ((int.from_bytes(sig[:32], "big") + N) % 2**256).to_bytes(32, "big") + sig[32:])]
    out = [{"op": "verify", "pk": pk, "msg": msg, "sig": bad, "valid": False, "where": f"malformed: {what}"}
           for what, _, bad in recs]
    bad_pks = [("y + 1: off the curve", pk[:64] + bytes([pk[64] ^ 1])), ("x = p", b"\x04" + p + pk[33:]),
               ("the identity (all zeros)", b"\x04" + bytes(64)), ("one byte 00", b"\x00"),
               ("prefix 05", b"\x05" + pk[1:]), ("compressed x not on the curve", b"\x02" + x_bad),
               ("compressed x = p", b"\x03" + p), ("compressed prefix, 65 bytes", b"\x02" + pk[1:]),
               ("uncompressed prefix, 33 bytes", pk[:33])]
    out += [{"op": "verify", "pk": bad, "msg": msg, "sig": sig, "valid": False, "where": f"malformed key: {what}"}
            for what, bad in bad_pks]
    return out


def _has_point(x: int) -> bool:
    try:
        decode_point(b"\x02" + x.to_bytes(32, "big"))
        return True
    except ValueError:
        return False


def ecdh(sk: bytes, pk: bytes) -> bytes:
    """SP 800-56A 5.7.1.2: Z = x(d * Q), Q validated (ValueError); the result cannot be the identity
    (cofactor 1, 0 < d < n, Q of order n)."""
    return mul(scalar_from(sk), decode_point(pk))[0].to_bytes(32, "big")


# -- official vectors --------------------------------------------------------------------------------

SECTION = re.compile(r"^\[(.*)\]$")


def _records(path: Path):
    """CAVP request/response files: yields (section, {field: value}) per blank-line separated record."""
    section, rec = "", {}
    lines = path.read_text().splitlines() + [""]
    for no, raw in enumerate(lines, 1):
        line = raw.strip()
        if line.startswith("#"):
            continue
        m = SECTION.match(line)
        if m:
            section = m.group(1)
            continue
        if not line:
            if rec:
                yield section, rec
            rec = {}
            continue
        key, _, value = line.partition("=")
        rec.setdefault("_line", no)
        rec[key.strip()] = value.strip()


def _pk(rec: dict, xname: str, yname: str) -> bytes:
    return b"\x04" + bytes.fromhex(rec[xname].zfill(64)) + bytes.fromhex(rec[yname].zfill(64))


def read_vectors(path) -> list[dict]:
    """The P-256 / SHA-256 records of the official files (every file's first line names its source):
    CAVP ECDSA KeyPair (op keygen), SigGen (op sign, k given as rnd), SigVer (op verify, Result P/F),
    the CAVP KAS ECC validity test (op ecdh: sk, the peer's pk, own_pk, shared; valid when
    own_pk is sk's public key, pk is valid and the shared x-coordinate is `shared`) and RFC 6979 A.2.5 (op sign, deterministic,
    and its k recorded as `k`)."""
    path = Path(path)
    out: list[dict] = []
    for section, rec in _records(path):
        where = f"{path.name}:{rec['_line']}"
        if "Result" in rec and "R" in rec:           # SigVer
            out.append({"op": "verify", "pk": _pk(rec, "Qx", "Qy"), "msg": bytes.fromhex(rec["Msg"]),
                        "sig": bytes.fromhex(rec["R"].zfill(64) + rec["S"].zfill(64)),
                        "valid": rec["Result"].startswith("P"), "where": where})
        elif "k" in rec and "Msg" in rec:             # SigGen (k given)
            out.append({"op": "sign", "sk": bytes.fromhex(rec["d"].zfill(64)), "msg": bytes.fromhex(rec["Msg"]),
                        "rnd": bytes.fromhex(rec["k"].zfill(64)), "pk": _pk(rec, "Qx", "Qy"),
                        "sig": bytes.fromhex(rec["R"].zfill(64) + rec["S"].zfill(64)), "valid": True,
                        "where": where})
        elif "dsIUT" in rec:                          # KAS ECC validity test, static keys, Z only
            out.append({"op": "ecdh", "sk": bytes.fromhex(rec["dsIUT"].zfill(64)),
                        "pk": _pk(rec, "QsCAVSx", "QsCAVSy"), "own_pk": _pk(rec, "QsIUTx", "QsIUTy"),
                        "shared": bytes.fromhex(rec["Z"].zfill(64)), "valid": rec["Result"].startswith("P"),
                        "where": where})
        elif "Message" in rec:                        # RFC 6979 A.2.5 (our transcription)
            out.append({"op": "sign", "sk": bytes.fromhex(rec["x"]), "msg": rec["Message"].encode(),
                        "pk": _pk(rec, "Ux", "Uy"), "k": bytes.fromhex(rec["k"]), "rnd": bytes(32),
                        "sig": bytes.fromhex(rec["r"] + rec["s"]), "valid": True, "where": where})
        elif "d" in rec and "Qx" in rec:              # KeyPair
            out.append({"op": "keygen", "seed": bytes.fromhex(rec["d"].zfill(64)), "sk": bytes.fromhex(rec["d"].zfill(64)),
                        "pk": _pk(rec, "Qx", "Qy"), "valid": True, "where": where})
        elif set(rec) == {"_line", "N"}:              # KeyPair's record count
            continue
        else:
            raise ValueError(f"{where}: a record of no known kind")
    return out
