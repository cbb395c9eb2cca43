# SPDX-License-Identifier: MIT
"""LMS and HSS hash-based signatures (RFC 8554; SP 800-208's SHA-256/192 and SHAKE256 sets): the
differential oracle, and a signer that makes the test signatures.

Written from RFC 8554 (sections 3-6, Appendix A's pseudorandom key generation, Appendix B's parameter
formulas) and SP 800-208 section 4 (the SHA-256/192 = SHA-256 truncated to 24 bytes and SHAKE256 output
lengths, their type codes). The hashes are Python's hashlib; everything else (coefficients, checksum,
chains, tree, parsing) is written here, sharing nothing with the C under test.

Verification rules (both this model and crypto/lms/ref follow them; docs/lms.md):
- HSS public key u32 L || LMS public key; signature u32 Nspk || (LMS sig, LMS pub) * Nspk || LMS sig,
  Nspk = L - 1 (RFC 8554 6.3); L in 1..2 here (issue 31: up to two levels), anything else is refused.
- An LMS public key / signature whose type codes are unknown, whose LM-OTS and LMS type codes differ
  from the key's, or whose length is not the exact one its types give, is refused.
- SP 800-208 4.1: LMS and LM-OTS of one key use the same hash and output length (n = m); a key that
  mixes them is refused (RFC 8554's own sets are all SHA-256 n = 32, so this excludes none of them).

Signing is stateful (each q once): here it is a test tool only (`sign` takes the leaf index from the
private key and returns the next key); a device must never sign with this (docs/lms.md).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

D_PBLC, D_MESG, D_LEAF, D_INTR = 0x8080, 0x8181, 0x8282, 0x8383
MAX_LEVELS = 2


@dataclass(frozen=True)
class Hash:
    name: str          # "sha256" | "shake256"
    n: int             # output bytes

    def __call__(self, data: bytes) -> bytes:
        if self.name == "sha256":
            return hashlib.sha256(data).digest()[:self.n]
        return hashlib.shake_256(data).digest(self.n)


SHA256_32, SHA256_24 = Hash("sha256", 32), Hash("sha256", 24)
SHAKE_32, SHAKE_24 = Hash("shake256", 32), Hash("shake256", 24)
HASHES = (SHA256_32, SHA256_24, SHAKE_32, SHAKE_24)     # type code blocks in this order


@dataclass(frozen=True)
class OtsParams:
    typecode: int
    name: str
    H: Hash
    w: int

    @property
    def n(self) -> int:
        return self.H.n

    @property
    def u(self) -> int:                      # RFC 8554 Appendix B
        return -(-8 * self.n // self.w)

    @property
    def v(self) -> int:
        bits = ((1 << self.w) - 1) * self.u
        return -(-(bits.bit_length()) // self.w)

    @property
    def ls(self) -> int:
        return 16 - self.v * self.w

    @property
    def p(self) -> int:
        return self.u + self.v

    @property
    def sig_bytes(self) -> int:
        return 4 + self.n * (self.p + 1)


@dataclass(frozen=True)
class LmsParams:
    typecode: int
    name: str
    H: Hash
    h: int

    @property
    def m(self) -> int:
        return self.H.n


def _hash_label(H: Hash, prefix: str) -> str:
    if H.name == "sha256":
        return f"{prefix}_SHA256_{'N' if prefix == 'LMOTS' else 'M'}{H.n}"
    return f"{prefix}_SHAKE_{'N' if prefix == 'LMOTS' else 'M'}{H.n}"


# RFC 8554 section 8 (1-4, 5-9) and SP 800-208 section 4 (the others), IANA's registry.
OTS: dict[int, OtsParams] = {}
LMS: dict[int, LmsParams] = {}
for _k, _H in enumerate(HASHES):
    for _j, _w in enumerate((1, 2, 4, 8)):
        _t = 1 + 4 * _k + _j
        OTS[_t] = OtsParams(_t, f"{_hash_label(_H, 'LMOTS')}_W{_w}", _H, _w)
    for _j, _h in enumerate((5, 10, 15, 20, 25)):
        _t = 5 + 5 * _k + _j
        LMS[_t] = LmsParams(_t, f"{_hash_label(_H, 'LMS')}_H{_h}", _H, _h)
OTS_BY_NAME = {p.name: p for p in OTS.values()}
LMS_BY_NAME = {p.name: p for p in LMS.values()}


def u32(x: int) -> bytes:
    return x.to_bytes(4, "big")


def u16(x: int) -> bytes:
    return x.to_bytes(2, "big")


def coef(S: bytes, i: int, w: int) -> int:
    """RFC 8554 section 3.1.3: the i-th w-bit field of S, most significant first."""
    return ((1 << w) - 1) & (S[i * w // 8] >> (8 - (w * (i % (8 // w)) + w)))


def checksum(ots: OtsParams, S: bytes) -> int:
    """RFC 8554 section 4.4 over the n-byte hash S, shifted left by ls."""
    total = sum(((1 << ots.w) - 1) - coef(S, i, ots.w) for i in range(8 * ots.n // ots.w))
    return (total << ots.ls) & 0xFFFF


def digits(ots: OtsParams, Q: bytes) -> list[int]:
    S = Q + u16(checksum(ots, Q))
    return [coef(S, i, ots.w) for i in range(ots.p)]


def chain(ots: OtsParams, I: bytes, q: int, i: int, x: bytes, start: int, stop: int) -> bytes:
    """Iterate the chain function from step start to stop - 1 (RFC 8554 section 4.3)."""
    prefix = I + u32(q) + u16(i)
    for j in range(start, stop):
        x = ots.H(prefix + bytes([j]) + x)
    return x


# ---- verification ------------------------------------------------------------------------------------

class Invalid(Exception):
    """A refused input: malformed or unsupported key or signature, or a signature that does not verify."""


def ots_candidate(ots: OtsParams, I: bytes, q: int, msg: bytes, sig: bytes) -> bytes:
    """RFC 8554 Algorithm 4b: the public key candidate Kc from an LM-OTS signature (type already checked)."""
    if len(sig) != ots.sig_bytes or int.from_bytes(sig[:4], "big") != ots.typecode:
        raise Invalid("LM-OTS signature length or type")
    n = ots.n
    C = sig[4:4 + n]
    Q = ots.H(I + u32(q) + u16(D_MESG) + C + msg)
    top = (1 << ots.w) - 1
    z = [chain(ots, I, q, i, sig[4 + n * (i + 1):4 + n * (i + 2)], a, top) for i, a in enumerate(digits(ots, Q))]
    return ots.H(I + u32(q) + u16(D_PBLC) + b"".join(z))


def parse_lms_pub(pub: bytes) -> tuple[LmsParams, OtsParams, bytes, bytes]:
    if len(pub) < 8:
        raise Invalid("LMS public key too short")
    lt, ot = int.from_bytes(pub[:4], "big"), int.from_bytes(pub[4:8], "big")
    if lt not in LMS or ot not in OTS:
        raise Invalid("unknown LMS or LM-OTS type")
    lp, op = LMS[lt], OTS[ot]
    if lp.H != op.H:
        raise Invalid("LMS and LM-OTS hashes differ (SP 800-208 4.1)")
    if len(pub) != 24 + lp.m:
        raise Invalid("LMS public key length")
    return lp, op, pub[8:24], pub[24:]


def lms_sig_bytes(sig: bytes, ots: OtsParams | None = None) -> int:
    """The length an LMS signature at the start of sig claims by its type codes (RFC 8554 5.4.2)."""
    if len(sig) < 8:
        raise Invalid("LMS signature too short")
    ot = int.from_bytes(sig[4:8], "big")
    if ot not in OTS:
        raise Invalid("unknown LM-OTS type in the signature")
    op = OTS[ot]
    at = 4 + op.sig_bytes
    if len(sig) < at + 4:
        raise Invalid("LMS signature too short")
    lt = int.from_bytes(sig[at:at + 4], "big")
    if lt not in LMS:
        raise Invalid("unknown LMS type in the signature")
    return at + 4 + LMS[lt].h * LMS[lt].m


def lms_verify(pub: bytes, msg: bytes, sig: bytes) -> bool:
    """RFC 8554 Algorithm 6 (6a): True when sig is a valid LMS signature of msg under pub."""
    try:
        lp, op, I, T1 = parse_lms_pub(pub)
        if len(sig) != lms_sig_bytes(sig):
            raise Invalid("LMS signature length")
        q = int.from_bytes(sig[:4], "big")
        if int.from_bytes(sig[4:8], "big") != op.typecode:
            raise Invalid("LM-OTS type differs from the key's")
        at = 4 + op.sig_bytes
        if int.from_bytes(sig[at:at + 4], "big") != lp.typecode:
            raise Invalid("LMS type differs from the key's")
        if q >= 1 << lp.h:
            raise Invalid("leaf index out of range")
        Kc = ots_candidate(op, I, q, msg, sig[4:at])
        node = (1 << lp.h) + q
        tmp = lp.H(I + u32(node) + u16(D_LEAF) + Kc)
        path = sig[at + 4:]
        for i in range(lp.h):
            sib = path[i * lp.m:(i + 1) * lp.m]
            if node & 1:
                tmp = lp.H(I + u32(node // 2) + u16(D_INTR) + sib + tmp)
            else:
                tmp = lp.H(I + u32(node // 2) + u16(D_INTR) + tmp + sib)
            node //= 2
        return tmp == T1
    except Invalid:
        return False


def hss_verify(pub: bytes, msg: bytes, sig: bytes) -> bool:
    """RFC 8554 Algorithm 8 (section 6.3) with L <= MAX_LEVELS."""
    if len(pub) < 4 or len(sig) < 4:
        return False
    L = int.from_bytes(pub[:4], "big")
    nspk = int.from_bytes(sig[:4], "big")
    if not 1 <= L <= MAX_LEVELS or nspk + 1 != L:
        return False
    key, rest = pub[4:], sig[4:]
    try:
        parse_lms_pub(key)
        for _ in range(nspk):
            k = lms_sig_bytes(rest)
            s, rest = rest[:k], rest[k:]
            if len(rest) < 8:
                return False
            lt = int.from_bytes(rest[:4], "big")
            if lt not in LMS:
                return False
            pk_len = 24 + LMS[lt].m
            child, rest = rest[:pk_len], rest[pk_len:]
            if len(child) != pk_len or not lms_verify(key, child, s):
                return False
            key = child
    except Invalid:
        return False
    return lms_verify(key, msg, rest)


def verify(pk: bytes, msg: bytes, sig: bytes, ctx: bytes = b"") -> bool:
    """The signature kind's API: HSS verification (an L = 1 HSS key carries one LMS key)."""
    if ctx:
        return False
    return hss_verify(bytes(pk), bytes(msg), bytes(sig))


# ---- key generation and signing (test tool: stateful, never on a device) -----------------------------

def ots_x(ots: OtsParams, I: bytes, q: int, seed: bytes, i: int) -> bytes:
    """RFC 8554 Appendix A: x_q[i] = H(I || u32str(q) || u16str(i) || u8str(0xff) || SEED)."""
    return ots.H(I + u32(q) + u16(i) + b"\xff" + seed)


def ots_public(ots: OtsParams, I: bytes, q: int, seed: bytes) -> bytes:
    top = (1 << ots.w) - 1
    ys = [chain(ots, I, q, i, ots_x(ots, I, q, seed, i), 0, top) for i in range(ots.p)]
    return ots.H(I + u32(q) + u16(D_PBLC) + b"".join(ys))


def ots_sign(ots: OtsParams, I: bytes, q: int, seed: bytes, msg: bytes, C: bytes) -> bytes:
    Q = ots.H(I + u32(q) + u16(D_MESG) + C + msg)
    ys = [chain(ots, I, q, i, ots_x(ots, I, q, seed, i), 0, a) for i, a in enumerate(digits(ots, Q))]
    return u32(ots.typecode) + C + b"".join(ys)


_TREES: dict[tuple, list[bytes]] = {}


def lms_tree(lp: LmsParams, op: OtsParams, I: bytes, seed: bytes) -> list[bytes]:
    """T[1 .. 2^(h+1) - 1] of RFC 8554 section 5.3 (T[0] unused); cached per key."""
    key = (lp.typecode, op.typecode, I, seed)
    if key not in _TREES:
        leaves = 1 << lp.h
        T = [b""] * (2 * leaves)
        for q in range(leaves):
            T[leaves + q] = lp.H(I + u32(leaves + q) + u16(D_LEAF) + ots_public(op, I, q, seed))
        for r in range(leaves - 1, 0, -1):
            T[r] = lp.H(I + u32(r) + u16(D_INTR) + T[2 * r] + T[2 * r + 1])
        _TREES[key] = T
    return _TREES[key]


def sparse_path(lp: LmsParams, op: OtsParams, I: bytes, seed: bytes, q: int) -> tuple[bytes, bytes]:
    """A one-leaf key (test tool): leaf q is a real LM-OTS key, every sibling on its path the root of a
    subtree whose leaves nobody knows (pseudorandom from SEED). Its root T[1] and the path verify exactly
    as a full tree's: the verifier cannot tell, and the signer never computes 2^h LM-OTS keys (a full
    H10 / W8 tree costs the model over a minute; H25 is out of reach). Returns (T[1], path)."""
    node = (1 << lp.h) + q
    tmp = lp.H(I + u32(node) + u16(D_LEAF) + ots_public(op, I, q, seed))
    path = b""
    while node > 1:
        sib = lp.H(b"lms-model sparse" + I + u32(node ^ 1) + seed)
        path += sib
        tmp = lp.H(I + u32(node // 2) + u16(D_INTR) + (sib + tmp if node & 1 else tmp + sib))
        node //= 2
    return tmp, path


def lms_keygen(lp: LmsParams, op: OtsParams, I: bytes, seed: bytes, sparse_leaf: int | None = None) -> bytes:
    root = (lms_tree(lp, op, I, seed)[1] if sparse_leaf is None else sparse_path(lp, op, I, seed, sparse_leaf)[0])
    return u32(lp.typecode) + u32(op.typecode) + I + root


def lms_sign(lp: LmsParams, op: OtsParams, I: bytes, seed: bytes, q: int, msg: bytes, sparse: bool = False) -> bytes:
    if not 0 <= q < 1 << lp.h:
        raise ValueError("leaf index out of range")
    C = op.H(I + u32(q) + u16(0xFFFD) + b"\xff" + seed)[:op.n]     # a per-leaf randomiser from the seed
    if sparse:
        path = sparse_path(lp, op, I, seed, q)[1]
    else:
        T = lms_tree(lp, op, I, seed)
        node, path = (1 << lp.h) + q, b""
        while node > 1:
            path += T[node ^ 1]
            node //= 2
    return u32(q) + ots_sign(op, I, q, seed, msg, C) + u32(lp.typecode) + path


@dataclass(frozen=True)
class HssKey:
    """A test signer's private key: the levels' (LMS set, LM-OTS set, I, SEED) and each level's leaf."""
    levels: tuple[tuple[LmsParams, OtsParams, bytes, bytes], ...]
    leaves: tuple[int, ...]
    sparse: bool = False       # one-leaf trees (sparse_path): each level can sign at its leaf only

    def level_public(self, d: int) -> bytes:
        return lms_keygen(*self.levels[d], sparse_leaf=self.leaves[d] if self.sparse else None)

    def public(self) -> bytes:
        return u32(len(self.levels)) + self.level_public(0)


def hss_keygen(seed: bytes, sets, leaves: tuple[int, ...] | None = None, sparse: bool = False) -> HssKey:
    """An HSS key of len(sets) levels ((LMS name, LM-OTS name) each); I and SEED per level from seed."""
    levels = []
    for d, (ln, on) in enumerate(sets):
        lp, op = LMS_BY_NAME[ln], OTS_BY_NAME[on]
        I = hashlib.sha256(b"lms-model I" + bytes([d]) + seed).digest()[:16]
        s = hashlib.sha256(b"lms-model SEED" + bytes([d]) + seed).digest()[:op.n]
        levels.append((lp, op, I, s))
    return HssKey(tuple(levels), tuple(leaves or (0,) * len(levels)), sparse)


def hss_sign(key: HssKey, msg: bytes) -> bytes:
    """RFC 8554 6.2: signed public keys of the lower levels, then the message's signature."""
    parts = [u32(len(key.levels) - 1)]
    for d in range(len(key.levels) - 1):
        lp, op, I, s = key.levels[d]
        child = key.level_public(d + 1)
        parts += [lms_sign(lp, op, I, s, key.leaves[d], child, key.sparse), child]
    lp, op, I, s = key.levels[-1]
    parts.append(lms_sign(lp, op, I, s, key.leaves[-1], msg, key.sparse))
    return b"".join(parts)


def hss_sig_bytes(sets: list[tuple[str, str]]) -> int:
    total = 4
    for d, (ln, on) in enumerate(sets):
        lp, op = LMS_BY_NAME[ln], OTS_BY_NAME[on]
        total += 4 + op.sig_bytes + 4 + lp.h * lp.m + (24 + lp.m if d else 0)
    return total


# ---- vectors -----------------------------------------------------------------------------------------

def _rfc8554_records(path: Path) -> list[dict]:
    """crypto/lms/vectors/rfc8554.txt: `Key = value` records separated by blank lines."""
    out, rec = [], {}
    for raw in path.read_text().splitlines() + [""]:
        line = raw.strip()
        if line.startswith("#"):
            continue
        if not line:
            if rec:
                out.append({"op": "verify", "pk": bytes.fromhex(rec["PK"]), "msg": bytes.fromhex(rec["Msg"]),
                            "sig": bytes.fromhex(rec["Sig"]), "valid": rec.get("Result", "P") == "P",
                            "where": f"{path.name} {rec.get('Name', '?')}"})
                rec = {}
            continue
        k, _, v = line.partition("=")
        rec[k.strip()] = rec.get(k.strip(), "") + v.strip()
    return out


def _acvp_records(path: Path) -> list[dict]:
    """ACVP LMS sigVer 1.0: prompt.json beside expectedResults.json. The LMS public key of ACVP is an
    LMS key (no L); the record's pk is the HSS key of L = 1 over it and the signature carries Nspk = 0."""
    prompt = json.loads(path.read_text())
    expected = json.loads(path.with_name(path.name.replace("prompt", "expectedResults")).read_text())
    verdict = {t["tcId"]: t["testPassed"] for g in expected["testGroups"] for t in g["tests"]}
    out = []
    for g in prompt["testGroups"]:
        pk = u32(1) + bytes.fromhex(g["publicKey"])
        for t in g["tests"]:
            out.append({"op": "verify", "pk": pk, "msg": bytes.fromhex(t["message"]),
                        "sig": u32(0) + bytes.fromhex(t["signature"]), "valid": verdict[t["tcId"]],
                        "where": f"{path.name} tgId {g['tgId']} ({g['lmsMode']}, {g['lmOtsMode']}) tcId {t['tcId']}"})
    return out


def read_vectors(path) -> list[dict]:
    path = Path(path)
    if path.suffix == ".json":
        return _acvp_records(path)
    return _rfc8554_records(path)


# ---- the signature kind's model API (mcucrypt/kinds/signature.py) -----------------------------------

# keygen takes the instance's parameters (META.yml `params`: the HSS levels of the instance's keys):
# the kind passes them to models that set this.
KEYGEN_TAKES_INSTANCE = True
DEFAULT_SETS = (("LMS_SHA256_M32_H10", "LMOTS_SHA256_N32_W4"),)


def encode_sk(key: HssKey) -> bytes:
    """The test signer's private key as bytes: u8 L, u8 sparse, then per level u32 LMS type, u32 LM-OTS
    type, I, SEED (n bytes), u32 leaf. Never a device's format: LMS signing is not done on a device."""
    out = bytes([len(key.levels), int(key.sparse)])
    for (lp, op, I, s), q in zip(key.levels, key.leaves):
        out += u32(lp.typecode) + u32(op.typecode) + I + s + u32(q)
    return out


def decode_sk(sk: bytes) -> HssKey:
    L, sparse, at, levels, leaves = sk[0], bool(sk[1]), 2, [], []
    for _ in range(L):
        lp, op = LMS[int.from_bytes(sk[at:at + 4], "big")], OTS[int.from_bytes(sk[at + 4:at + 8], "big")]
        I, s = sk[at + 8:at + 24], sk[at + 24:at + 24 + op.n]
        levels.append((lp, op, I, s))
        leaves.append(int.from_bytes(sk[at + 24 + op.n:at + 28 + op.n], "big"))
        at += 28 + op.n
    return HssKey(tuple(levels), tuple(leaves), sparse)


def keygen(seed: bytes, instance: dict | None = None) -> tuple[bytes, bytes]:
    """An HSS key of the instance's levels (`params`), each a one-leaf (sparse) tree at a leaf drawn from
    the seed: the verifier's cost and checks are those of a full tree (sparse_path)."""
    sets = [tuple(s) for s in (instance or {}).get("params", DEFAULT_SETS)]
    leaves = tuple(int.from_bytes(hashlib.sha256(b"lms-model leaf" + bytes([d]) + seed).digest()[:4], "big")
                   % (1 << LMS_BY_NAME[ln].h) for d, (ln, _) in enumerate(sets))
    key = hss_keygen(seed, sets, leaves, sparse=True)
    return key.public(), encode_sk(key)


def sign(sk: bytes, msg: bytes, ctx: bytes = b"", rnd: bytes | None = None) -> bytes:
    if ctx or rnd:
        raise ValueError("LMS takes no context and no randomness")
    return hss_sign(decode_sk(sk), bytes(msg))


def malformed() -> list[dict]:
    """Keys and signatures every verifier here must refuse (valid False): L = 0 and 3, Nspk != L - 1,
    unknown and mixed type codes, a leaf index past the tree, wrong lengths."""
    key = hss_keygen(b"malformed", [("LMS_SHA256_M32_H5", "LMOTS_SHA256_N32_W8")], (3,), sparse=True)
    pk, msg = key.public(), b"malformed inputs"
    sig = hss_sign(key, msg)
    lms_pk, lms_sig = pk[4:], sig[4:]
    ots_at = 4 + OTS[4].sig_bytes + 4               # the LMS type in the signature
    out = []

    def add(what: str, p: bytes, s: bytes) -> None:
        out.append({"op": "verify", "pk": p, "msg": msg, "sig": s, "valid": False, "where": f"malformed: {what}"})

    add("L = 0", u32(0) + lms_pk, sig)
    add("L = 3 (over the supported 2)", u32(3) + lms_pk, u32(2) + lms_sig)
    add("L = 1, Nspk = 1", pk, u32(1) + lms_sig)
    add("L = 2 key, Nspk = 0", u32(2) + lms_pk, sig)
    for t in (0, 4, 25, 0xFFFFFFFF, 10):          # unknown LMS types; 10 = SHA-256/192 H5 (mixed with N32)
        add(f"key LMS type {t:#x}", pk[:4] + u32(t) + pk[8:], sig)
    for t in (0, 17, 0xFFFFFFFF, 8):              # unknown LM-OTS types; 8 = N24 W8 (mixed with M32)
        add(f"key LM-OTS type {t:#x}", pk[:8] + u32(t) + pk[12:], sig)
    add("signature LM-OTS type W4 (not the key's)", pk, sig[:8] + u32(3) + sig[12:])
    add("signature LMS type H10 (not the key's)", pk, sig[:4 + ots_at] + u32(6) + sig[8 + ots_at:])
    add("leaf index 2^h", pk, sig[:4] + u32(32) + sig[8:])
    add("leaf index 2^32 - 1", pk, sig[:4] + u32(0xFFFFFFFF) + sig[8:])
    add("public key one byte short", pk[:-1], sig)
    add("public key one byte long", pk + b"\0", sig)
    add("public key of 3 bytes", pk[:3], sig)
    add("signature of 3 bytes", pk, sig[:3])
    add("signature cut inside the LM-OTS part", pk, sig[:100])
    add("signature one path node short", pk, sig[:-32])
    return out
