# SPDX-License-Identifier: MIT
"""ML-DSA (FIPS 204): an independent model written from the standard, the differential-test oracle of
crypto/mldsa.

Algorithm numbers are FIPS 204's (August 2024). Internal interfaces (section 6): keygen_internal(xi),
sign_internal(sk, m_prime, rnd), verify_internal(pk, m_prime, sig); external pure ML-DSA (section 5):
keygen(seed), sign(sk, msg, ctx, rnd) (rnd None: the deterministic variant, 32 zero bytes),
verify(pk, msg, sig, ctx). Polynomials are lists of 256 integers; the NTT is Algorithms 41/42 with
zeta = 1753 in bit-reversed order. Everything here is plain Python integers (slow, readable).

read_vectors(path) normalises NIST ACVP ML-DSA JSON (keyGen, sigGen, sigVer internalProjection) into the
signature kind's records (docs: mcucrypt/kinds/signature.py).
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

Q = 8380417
N = 256
D = 13
ZETA = 1753

# name: (k, l, eta, tau, lambda, gamma1, gamma2, omega)
PARAMS = {
    "mldsa44": (4, 4, 2, 39, 128, 1 << 17, (Q - 1) // 88, 80),
    "mldsa65": (6, 5, 4, 49, 192, 1 << 19, (Q - 1) // 32, 55),
    "mldsa87": (8, 7, 2, 60, 256, 1 << 19, (Q - 1) // 32, 75),
}
ACVP_NAMES = {"ML-DSA-44": "mldsa44", "ML-DSA-65": "mldsa65", "ML-DSA-87": "mldsa87"}


class Params:
    def __init__(self, name: str):
        (self.k, self.l, self.eta, self.tau, self.lam, self.gamma1, self.gamma2,
         self.omega) = PARAMS[name]
        self.name = name
        self.beta = self.tau * self.eta
        self.c_tilde_bytes = self.lam // 4
        self.eta_bits = (2 * self.eta).bit_length()
        self.z_bits = 1 + (self.gamma1 - 1).bit_length()
        self.w1_bits = ((Q - 1) // (2 * self.gamma2) - 1).bit_length()
        self.pk_bytes = 32 + 32 * self.k * 10
        self.sk_bytes = 128 + 32 * ((self.k + self.l) * self.eta_bits + D * self.k)
        self.sig_bytes = self.c_tilde_bytes + 32 * self.l * self.z_bits + self.omega + self.k


def H(data: bytes, n: int) -> bytes:
    return hashlib.shake_256(data).digest(n)


def _bitrev8(i: int) -> int:
    return int(f"{i:08b}"[::-1], 2)


ZETAS = [pow(ZETA, _bitrev8(i), Q) for i in range(256)]


def ntt(w: list[int]) -> list[int]:                      # Algorithm 41
    a = [x % Q for x in w]
    m, length = 0, 128
    while length >= 1:
        for start in range(0, 256, 2 * length):
            m += 1
            z = ZETAS[m]
            for j in range(start, start + length):
                t = z * a[j + length] % Q
                a[j + length] = (a[j] - t) % Q
                a[j] = (a[j] + t) % Q
        length //= 2
    return a


def intt(a: list[int]) -> list[int]:                     # Algorithm 42
    w = list(a)
    m, length = 256, 1
    while length < 256:
        for start in range(0, 256, 2 * length):
            m -= 1
            z = Q - ZETAS[m]
            for j in range(start, start + length):
                t = w[j]
                w[j] = (t + w[j + length]) % Q
                w[j + length] = z * (t - w[j + length]) % Q
        length *= 2
    f = 8347681  # 256^-1 mod q
    return [x * f % Q for x in w]


def pmul(a, b):
    return [x * y % Q for x, y in zip(a, b)]


def padd(a, b):
    return [(x + y) % Q for x, y in zip(a, b)]


def psub(a, b):
    return [(x - y) % Q for x, y in zip(a, b)]


def mod_pm(r: int, alpha: int) -> int:
    """r mod+- alpha: the representative in (-alpha/2, alpha/2] (alpha even) or [-(alpha-1)/2, ..]."""
    r %= alpha
    return r - alpha if r > alpha // 2 else r


# ------------------------------------------------------------------ bit packing (Algorithms 16-21)
def bits_pack(values, nbits: int) -> bytes:
    acc = 0
    for i, v in enumerate(values):
        acc |= v << (nbits * i)
    return acc.to_bytes(len(values) * nbits // 8, "little")


def bits_unpack(data: bytes, nbits: int, count: int) -> list[int]:
    acc = int.from_bytes(data, "little")
    mask = (1 << nbits) - 1
    return [(acc >> (nbits * i)) & mask for i in range(count)]


def simple_bit_pack(w, b: int) -> bytes:                  # Algorithm 16
    return bits_pack(w, b.bit_length())


def bit_pack(w, a: int, b: int) -> bytes:                 # Algorithm 17
    return bits_pack([b - x for x in w], (a + b).bit_length())


def simple_bit_unpack(v: bytes, b: int) -> list[int]:     # Algorithm 18
    return bits_unpack(v, b.bit_length(), 256)


def bit_unpack(v: bytes, a: int, b: int) -> list[int]:    # Algorithm 19
    return [b - x for x in bits_unpack(v, (a + b).bit_length(), 256)]


def hint_bit_pack(p: Params, h) -> bytes:                 # Algorithm 20
    y = bytearray(p.omega + p.k)
    index = 0
    for i in range(p.k):
        for j in range(256):
            if h[i][j]:
                y[index] = j
                index += 1
        y[p.omega + i] = index
    return bytes(y)


def hint_bit_unpack(p: Params, y: bytes):                 # Algorithm 21; None for the standard's bottom
    h = [[0] * 256 for _ in range(p.k)]
    index = 0
    for i in range(p.k):
        if y[p.omega + i] < index or y[p.omega + i] > p.omega:
            return None
        first = index
        while index < y[p.omega + i]:
            if index > first and y[index - 1] >= y[index]:
                return None
            h[i][y[index]] = 1
            index += 1
    for i in range(index, p.omega):
        if y[i] != 0:
            return None
    return h


# ------------------------------------------------------------------ key and signature encodings
def pk_encode(p: Params, rho: bytes, t1) -> bytes:         # Algorithm 22
    return rho + b"".join(simple_bit_pack(t, (1 << 10) - 1) for t in t1)


def pk_decode(p: Params, pk: bytes):                       # Algorithm 23
    rho = pk[:32]
    t1 = [simple_bit_unpack(pk[32 + 320 * i: 32 + 320 * (i + 1)], (1 << 10) - 1) for i in range(p.k)]
    return rho, t1


def sk_encode(p: Params, rho, key, tr, s1, s2, t0) -> bytes:   # Algorithm 24
    out = rho + key + tr
    out += b"".join(bit_pack(s, p.eta, p.eta) for s in s1)
    out += b"".join(bit_pack(s, p.eta, p.eta) for s in s2)
    out += b"".join(bit_pack(t, (1 << (D - 1)) - 1, 1 << (D - 1)) for t in t0)
    return out


def sk_decode(p: Params, sk: bytes):                       # Algorithm 25
    rho, key, tr = sk[:32], sk[32:64], sk[64:128]
    pos, n = 128, 32 * p.eta_bits
    s1, s2 = [], []
    for _ in range(p.l):
        s1.append(bit_unpack(sk[pos:pos + n], p.eta, p.eta))
        pos += n
    for _ in range(p.k):
        s2.append(bit_unpack(sk[pos:pos + n], p.eta, p.eta))
        pos += n
    t0 = []
    for _ in range(p.k):
        t0.append(bit_unpack(sk[pos:pos + 32 * D], (1 << (D - 1)) - 1, 1 << (D - 1)))
        pos += 32 * D
    return rho, key, tr, s1, s2, t0


def sig_encode(p: Params, c_tilde: bytes, z, h) -> bytes:   # Algorithm 26
    return (c_tilde + b"".join(bit_pack(zi, p.gamma1 - 1, p.gamma1) for zi in z)
            + hint_bit_pack(p, h))


def sig_decode(p: Params, sig: bytes):                      # Algorithm 27
    c_tilde = sig[:p.c_tilde_bytes]
    pos, n = p.c_tilde_bytes, 32 * p.z_bits
    z = []
    for _ in range(p.l):
        z.append(bit_unpack(sig[pos:pos + n], p.gamma1 - 1, p.gamma1))
        pos += n
    return c_tilde, z, hint_bit_unpack(p, sig[pos:])


def w1_encode(p: Params, w1) -> bytes:                      # Algorithm 28
    return b"".join(simple_bit_pack(w, (Q - 1) // (2 * p.gamma2) - 1) for w in w1)


# ------------------------------------------------------------------ sampling (Algorithms 29-34)
def sample_in_ball(p: Params, rho: bytes) -> list[int]:     # Algorithm 29
    xof = hashlib.shake_256(rho)
    stream = xof.digest(8 + 272)
    signs = int.from_bytes(stream[:8], "little")
    pos = 8
    c = [0] * 256
    for i in range(256 - p.tau, 256):
        while True:
            if pos == len(stream):                          # the XOF read further (rare)
                stream = xof.digest(2 * len(stream))
            j = stream[pos]
            pos += 1
            if j <= i:
                break
        c[i] = c[j]
        c[j] = 1 - 2 * ((signs >> (i + p.tau - 256)) & 1)
    return c


def rej_ntt_poly(seed: bytes) -> list[int]:                 # Algorithm 30
    a: list[int] = []
    n = 168 * 5
    while True:
        stream = hashlib.shake_128(seed).digest(n)
        a, pos = [], 0
        while len(a) < 256 and pos + 3 <= len(stream):
            v = stream[pos] | (stream[pos + 1] << 8) | ((stream[pos + 2] & 0x7F) << 16)
            pos += 3
            if v < Q:
                a.append(v)
        if len(a) == 256:
            return a
        n += 168 * 5


def rej_bounded_poly(p: Params, seed: bytes) -> list[int]:  # Algorithm 31 with CoeffFromHalfByte
    n = 136 * 2
    while True:
        stream = hashlib.shake_256(seed).digest(n)
        a: list[int] = []
        for byte in stream:
            for b in (byte & 15, byte >> 4):
                if len(a) == 256:
                    break
                if p.eta == 2 and b < 15:
                    a.append(2 - b % 5)
                elif p.eta == 4 and b < 9:
                    a.append(4 - b)
            if len(a) == 256:
                return a
        n += 136


def expand_a(p: Params, rho: bytes):                        # Algorithm 32
    return [[rej_ntt_poly(rho + bytes([s, r])) for s in range(p.l)] for r in range(p.k)]


def expand_s(p: Params, rho: bytes):                        # Algorithm 33
    s1 = [rej_bounded_poly(p, rho + r.to_bytes(2, "little")) for r in range(p.l)]
    s2 = [rej_bounded_poly(p, rho + (r + p.l).to_bytes(2, "little")) for r in range(p.k)]
    return s1, s2


def expand_mask(p: Params, rho: bytes, mu: int):            # Algorithm 34
    c = p.z_bits
    return [bit_unpack(H(rho + (mu + r).to_bytes(2, "little"), 32 * c), p.gamma1 - 1, p.gamma1)
            for r in range(p.l)]


# ------------------------------------------------------------------ rounding (Algorithms 35-40)
def power2round(r: int):
    r %= Q
    r0 = mod_pm(r, 1 << D)
    return (r - r0) >> D, r0


def decompose(p: Params, r: int):
    r %= Q
    r0 = mod_pm(r, 2 * p.gamma2)
    if r - r0 == Q - 1:
        return 0, r0 - 1
    return (r - r0) // (2 * p.gamma2), r0


def high_bits(p, r):
    return decompose(p, r)[0]


def low_bits(p, r):
    return decompose(p, r)[1]


def make_hint(p, z, r):
    return int(high_bits(p, r) != high_bits(p, r + z))


def use_hint(p, h, r):
    m = (Q - 1) // (2 * p.gamma2)
    r1, r0 = decompose(p, r)
    if h and r0 > 0:
        return (r1 + 1) % m
    if h:
        return (r1 - 1) % m
    return r1


def inf_norm(vec) -> int:
    return max(abs(mod_pm(x, Q)) for poly in vec for x in poly)


def matvec_ntt(p: Params, a_hat, v_hat):
    out = []
    for r in range(p.k):
        acc = [0] * 256
        for s in range(p.l):
            acc = padd(acc, pmul(a_hat[r][s], v_hat[s]))
        out.append(acc)
    return out


# ------------------------------------------------------------------ internal interfaces (section 6)
def keygen_internal(name: str, xi: bytes):                   # Algorithm 6
    p = Params(name)
    h = H(xi + bytes([p.k, p.l]), 128)
    rho, rho_prime, key = h[:32], h[32:96], h[96:]
    a_hat = expand_a(p, rho)
    s1, s2 = expand_s(p, rho_prime)
    t = [padd(intt(x), s) for x, s in zip(matvec_ntt(p, a_hat, [ntt(s) for s in s1]), s2)]
    t1 = [[power2round(x)[0] for x in poly] for poly in t]
    t0 = [[power2round(x)[1] for x in poly] for poly in t]
    pk = pk_encode(p, rho, t1)
    tr = H(pk, 64)
    return pk, sk_encode(p, rho, key, tr, s1, s2, t0)


def sign_internal(name: str, sk: bytes, m_prime: bytes, rnd: bytes) -> bytes:   # Algorithm 7
    p = Params(name)
    rho, key, tr, s1, s2, t0 = sk_decode(p, sk)
    s1_hat, s2_hat, t0_hat = [ntt(s) for s in s1], [ntt(s) for s in s2], [ntt(t) for t in t0]
    a_hat = expand_a(p, rho)
    mu = H(tr + m_prime, 64)
    rho_pp = H(key + rnd + mu, 64)
    kappa = 0
    while True:
        y = expand_mask(p, rho_pp, kappa)
        kappa += p.l
        w = [intt(x) for x in matvec_ntt(p, a_hat, [ntt(v) for v in y])]
        w1 = [[high_bits(p, x) for x in poly] for poly in w]
        c_tilde = H(mu + w1_encode(p, w1), p.c_tilde_bytes)
        c_hat = ntt(sample_in_ball(p, c_tilde))
        cs1 = [intt(pmul(c_hat, s)) for s in s1_hat]
        cs2 = [intt(pmul(c_hat, s)) for s in s2_hat]
        z = [padd(a, b) for a, b in zip(y, cs1)]
        r0 = [[low_bits(p, x) for x in psub(a, b)] for a, b in zip(w, cs2)]
        if inf_norm(z) >= p.gamma1 - p.beta or max(abs(x) for poly in r0 for x in poly) >= p.gamma2 - p.beta:
            continue
        ct0 = [intt(pmul(c_hat, t)) for t in t0_hat]
        h = [[make_hint(p, (Q - c) % Q, (wv - s + c) % Q) for c, wv, s in zip(ct0[i], w[i], cs2[i])]
             for i in range(p.k)]
        if inf_norm(ct0) >= p.gamma2 or sum(map(sum, h)) > p.omega:
            continue
        z = [[mod_pm(x, Q) for x in poly] for poly in z]
        return sig_encode(p, c_tilde, z, h)


def verify_internal(name: str, pk: bytes, m_prime: bytes, sig: bytes) -> bool:   # Algorithm 8
    p = Params(name)
    if len(pk) != p.pk_bytes or len(sig) != p.sig_bytes:
        return False
    rho, t1 = pk_decode(p, pk)
    c_tilde, z, h = sig_decode(p, sig)
    if h is None:
        return False
    a_hat = expand_a(p, rho)
    tr = H(pk, 64)
    mu = H(tr + m_prime, 64)
    c_hat = ntt(sample_in_ball(p, c_tilde))
    az = matvec_ntt(p, a_hat, [ntt(x) for x in z])
    w_approx = [intt(psub(az[i], pmul(c_hat, ntt([x << D for x in t1[i]])))) for i in range(p.k)]
    w1 = [[use_hint(p, h[i][j], w_approx[i][j]) for j in range(256)] for i in range(p.k)]
    if inf_norm(z) >= p.gamma1 - p.beta:
        return False
    return H(mu + w1_encode(p, w1), p.c_tilde_bytes) == c_tilde


# ------------------------------------------------------------------ external pure ML-DSA (section 5)
def message_prime(msg: bytes, ctx: bytes) -> bytes:
    if len(ctx) > 255:
        raise ValueError("ML-DSA context string longer than 255 bytes")
    return bytes([0, len(ctx)]) + ctx + msg


def keygen(seed: bytes, name: str = "mldsa44"):
    return keygen_internal(name, seed)


def sign(sk: bytes, msg: bytes, ctx: bytes = b"", rnd: bytes | None = None, name: str | None = None) -> bytes:
    name = name or name_for_sk(sk)
    return sign_internal(name, sk, message_prime(msg, ctx), rnd if rnd is not None else bytes(32))


def verify(pk: bytes, msg: bytes, sig: bytes, ctx: bytes = b"", name: str | None = None) -> bool:
    if len(ctx) > 255:
        return False
    name = name or name_for_pk(pk)
    if name is None:
        return False
    return verify_internal(name, pk, message_prime(msg, ctx), sig)


def name_for_sk(sk: bytes) -> str:
    for name in PARAMS:
        if Params(name).sk_bytes == len(sk):
            return name
    raise ValueError(f"no ML-DSA parameter set has {len(sk)}-byte secret keys")


def name_for_pk(pk: bytes):
    for name in PARAMS:
        if Params(name).pk_bytes == len(pk):
            return name
    return None


# ------------------------------------------------------------------ ACVP JSON
def read_vectors(path) -> list[dict]:
    """NIST ACVP ML-DSA internalProjection JSON (keyGen, sigGen, sigVer) -> the signature kind's records.

    Groups without signatureInterface (the FIPS 204 files of vsId 42) are the internal interface: their
    message is M' itself. Records carry id (mldsa44/65/87) and interface ('internal' or 'external');
    external groups give msg and ctx (pure only; preHash and externalMu groups are skipped)."""
    doc = json.loads(Path(path).read_text())
    mode = doc["mode"]
    out: list[dict] = []
    for g in doc["testGroups"]:
        if g.get("preHash", "pure") != "pure" or g.get("externalMu"):
            continue
        ident = ACVP_NAMES[g["parameterSet"]]
        interface = g.get("signatureInterface", "internal")
        for t in g["tests"]:
            rec = {"id": ident, "interface": interface, "where": f"{Path(path).name} tg{g['tgId']} tc{t['tcId']}"}
            if mode == "keyGen":
                rec.update(op="keygen", seed=bytes.fromhex(t["seed"]), pk=bytes.fromhex(t["pk"]),
                           sk=bytes.fromhex(t["sk"]))
            elif mode == "sigGen":
                rec.update(op="sign", sk=bytes.fromhex(t.get("sk", g.get("sk", ""))),
                           msg=bytes.fromhex(t["message"]), sig=bytes.fromhex(t["signature"]),
                           rnd=bytes.fromhex(t["rnd"]) if "rnd" in t else bytes(32))
                if "context" in t:
                    rec["ctx"] = bytes.fromhex(t["context"])
            elif mode == "sigVer":
                rec.update(op="verify", pk=bytes.fromhex(t.get("pk", g.get("pk", ""))),
                           msg=bytes.fromhex(t["message"]), sig=bytes.fromhex(t["signature"]),
                           valid=bool(t["testPassed"]))
                if "context" in t:
                    rec["ctx"] = bytes.fromhex(t["context"])
            else:
                raise ValueError(f"{path}: unknown ACVP mode {mode!r}")
            if interface == "external" and "ctx" not in rec:
                rec["ctx"] = b""
            out.append(rec)
    return out


class _Scheme:
    """One parameter set's external interface, as the signature kind calls it (keygen(seed) -> (pk, sk),
    sign(sk, msg, ctx, rnd), verify(pk, msg, sig, ctx))."""

    def __init__(self, name: str):
        self.name = name

    def keygen(self, seed: bytes):
        return keygen_internal(self.name, seed)

    def sign(self, sk: bytes, msg: bytes, ctx: bytes = b"", rnd: bytes | None = None) -> bytes:
        return sign(sk, msg, ctx, rnd, name=self.name)

    def verify(self, pk: bytes, msg: bytes, sig: bytes, ctx: bytes = b"") -> bool:
        if len(pk) != Params(self.name).pk_bytes:
            return False
        return verify(pk, msg, sig, ctx, name=self.name)


def for_id(prim_id: str) -> _Scheme:
    """The signature kind's model of one id (mldsa44, mldsa65, mldsa87)."""
    return _Scheme(prim_id)
