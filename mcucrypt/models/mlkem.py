# SPDX-License-Identifier: MIT
"""ML-KEM (FIPS 203, August 2024): an independent model written from the standard, the differential
oracle of crypto/mlkem. Algorithm numbers are FIPS 203's; hashing by hashlib (FIPS 202).

API (kinds/kem.py):
  keygen(name, d, z) -> (ek, dk)              ML-KEM.KeyGen_internal (Algorithm 16)
  encaps(name, ek, m) -> (K, c)               ML-KEM.Encaps_internal (Algorithm 17), after the
                                              encapsulation key check of section 7.2 (ValueError)
  decaps(name, dk, c) -> K                    ML-KEM.Decaps_internal (Algorithm 18) with implicit rejection,
                                              after the decapsulation key and ciphertext checks of 7.3
  check_ek(name, ek), check_dk(name, dk)      the input checks alone (True / False)
  PARAMS[name]: k, eta1, eta2, du, dv and the sizes ek_bytes, dk_bytes, ct_bytes
"""
from __future__ import annotations

import hashlib

Q = 3329
N = 256
ZETA = 17


def _bitrev7(i: int) -> int:
    return int(f"{i:07b}"[::-1], 2)


# zeta^BitRev7(i) (Appendix A) and the base-case multipliers zeta^(2 BitRev7(i) + 1)
ZETAS = [pow(ZETA, _bitrev7(i), Q) for i in range(128)]
GAMMAS = [pow(ZETA, 2 * _bitrev7(i) + 1, Q) for i in range(128)]


def _params(k, eta1, eta2, du, dv):
    return {"k": k, "eta1": eta1, "eta2": eta2, "du": du, "dv": dv,
            "ek_bytes": 384 * k + 32, "dk_bytes": 768 * k + 96, "ct_bytes": 32 * (du * k + dv),
            "ss_bytes": 32}


PARAMS = {
    "mlkem512": _params(2, 3, 2, 10, 4),
    "mlkem768": _params(3, 2, 2, 10, 4),
    "mlkem1024": _params(4, 2, 2, 11, 5),
}


# -- hash functions (section 4.1) ---------------------------------------------------------------------

def H(s: bytes) -> bytes:
    return hashlib.sha3_256(s).digest()


def J(s: bytes) -> bytes:
    return hashlib.shake_256(s).digest(32)


def G(c: bytes) -> tuple[bytes, bytes]:
    out = hashlib.sha3_512(c).digest()
    return out[:32], out[32:]


def PRF(eta: int, s: bytes, b: int) -> bytes:
    return hashlib.shake_256(s + bytes([b])).digest(64 * eta)


# -- encodings (section 4.2.1) ------------------------------------------------------------------------

def byte_encode(f: list[int], d: int) -> bytes:
    """Algorithm 5: 256 d-bit integers, little-endian bit order."""
    acc = 0
    for i, a in enumerate(f):
        acc |= (a & ((1 << d) - 1)) << (d * i)
    return acc.to_bytes(32 * d, "little")


def byte_decode(b: bytes, d: int) -> list[int]:
    """Algorithm 6 (for d = 12 the integers are reduced mod q)."""
    acc = int.from_bytes(b, "little")
    m = Q if d == 12 else 1 << d
    return [((acc >> (d * i)) & ((1 << d) - 1)) % m for i in range(N)]


def compress(x: int, d: int) -> int:
    """Round((2^d / q) x) mod 2^d, in integers (section 4.2.1)."""
    return ((x << d) + Q // 2) // Q % (1 << d)


def decompress(y: int, d: int) -> int:
    return (y * Q + (1 << (d - 1))) >> d


# -- sampling (section 4.2.2) -------------------------------------------------------------------------

def sample_ntt(seed: bytes) -> list[int]:
    """Algorithm 7: rejection sampling of a polynomial in the NTT domain from SHAKE128(rho | j | i)."""
    xof = hashlib.shake_128(seed)
    a: list[int] = []
    length = 168 * 3
    stream = xof.digest(length)
    pos = 0
    while len(a) < N:
        if pos + 3 > len(stream):
            length *= 2
            stream = xof.digest(length)
        c0, c1, c2 = stream[pos], stream[pos + 1], stream[pos + 2]
        pos += 3
        d1 = c0 + 256 * (c1 % 16)
        d2 = c1 // 16 + 16 * c2
        if d1 < Q:
            a.append(d1)
        if d2 < Q and len(a) < N:
            a.append(d2)
    return a


def sample_poly_cbd(b: bytes, eta: int) -> list[int]:
    """Algorithm 8: centred binomial distribution from 64 eta bytes."""
    bits = [(byte >> j) & 1 for byte in b for j in range(8)]
    f = []
    for i in range(N):
        x = sum(bits[2 * i * eta:2 * i * eta + eta])
        y = sum(bits[2 * i * eta + eta:2 * i * eta + 2 * eta])
        f.append((x - y) % Q)
    return f


# -- NTT (section 4.3) --------------------------------------------------------------------------------

def ntt(f: list[int]) -> list[int]:
    """Algorithm 9."""
    f = list(f)
    i = 1
    length = 128
    while length >= 2:
        for start in range(0, N, 2 * length):
            zeta = ZETAS[i]
            i += 1
            for j in range(start, start + length):
                t = zeta * f[j + length] % Q
                f[j + length] = (f[j] - t) % Q
                f[j] = (f[j] + t) % Q
        length //= 2
    return f


def ntt_inv(f: list[int]) -> list[int]:
    """Algorithm 10."""
    f = list(f)
    i = 127
    length = 2
    while length <= 128:
        for start in range(0, N, 2 * length):
            zeta = ZETAS[i]
            i -= 1
            for j in range(start, start + length):
                t = f[j]
                f[j] = (t + f[j + length]) % Q
                f[j + length] = zeta * (f[j + length] - t) % Q
        length *= 2
    return [x * 3303 % Q for x in f]


def multiply_ntts(f: list[int], g: list[int]) -> list[int]:
    """Algorithms 11 and 12."""
    h = []
    for i in range(128):
        a0, a1, b0, b1, gamma = f[2 * i], f[2 * i + 1], g[2 * i], g[2 * i + 1], GAMMAS[i]
        h.append((a0 * b0 + a1 * b1 * gamma) % Q)
        h.append((a0 * b1 + a1 * b0) % Q)
    return h


def _add(f, g):
    return [(a + b) % Q for a, b in zip(f, g)]


def _sub(f, g):
    return [(a - b) % Q for a, b in zip(f, g)]


# -- K-PKE (section 5) --------------------------------------------------------------------------------

def _matrix(rho: bytes, k: int) -> list[list[list[int]]]:
    """A-hat[i][j] = SampleNTT(rho | j | i)."""
    return [[sample_ntt(rho + bytes([j, i])) for j in range(k)] for i in range(k)]


def kpke_keygen(p: dict, d: bytes) -> tuple[bytes, bytes]:
    """Algorithm 13."""
    k, eta1 = p["k"], p["eta1"]
    rho, sigma = G(d + bytes([k]))
    a_hat = _matrix(rho, k)
    n = 0
    s = []
    for _ in range(k):
        s.append(sample_poly_cbd(PRF(eta1, sigma, n), eta1))
        n += 1
    e = []
    for _ in range(k):
        e.append(sample_poly_cbd(PRF(eta1, sigma, n), eta1))
        n += 1
    s_hat = [ntt(x) for x in s]
    e_hat = [ntt(x) for x in e]
    t_hat = []
    for i in range(k):
        acc = e_hat[i]
        for j in range(k):
            acc = _add(acc, multiply_ntts(a_hat[i][j], s_hat[j]))
        t_hat.append(acc)
    ek = b"".join(byte_encode(t, 12) for t in t_hat) + rho
    dk = b"".join(byte_encode(x, 12) for x in s_hat)
    return ek, dk


def kpke_encrypt(p: dict, ek: bytes, m: bytes, r: bytes) -> bytes:
    """Algorithm 14."""
    k, eta1, eta2, du, dv = p["k"], p["eta1"], p["eta2"], p["du"], p["dv"]
    t_hat = [byte_decode(ek[384 * i:384 * i + 384], 12) for i in range(k)]
    rho = ek[384 * k:384 * k + 32]
    a_hat = _matrix(rho, k)
    n = 0
    y = []
    for _ in range(k):
        y.append(sample_poly_cbd(PRF(eta1, r, n), eta1))
        n += 1
    e1 = []
    for _ in range(k):
        e1.append(sample_poly_cbd(PRF(eta2, r, n), eta2))
        n += 1
    e2 = sample_poly_cbd(PRF(eta2, r, n), eta2)
    y_hat = [ntt(x) for x in y]
    u = []
    for i in range(k):
        acc = [0] * N
        for j in range(k):   # A-hat transposed
            acc = _add(acc, multiply_ntts(a_hat[j][i], y_hat[j]))
        u.append(_add(ntt_inv(acc), e1[i]))
    mu = [decompress(b, 1) for b in byte_decode(m, 1)]
    acc = [0] * N
    for i in range(k):
        acc = _add(acc, multiply_ntts(t_hat[i], y_hat[i]))
    v = _add(_add(ntt_inv(acc), e2), mu)
    c1 = b"".join(byte_encode([compress(x, du) for x in ui], du) for ui in u)
    c2 = byte_encode([compress(x, dv) for x in v], dv)
    return c1 + c2


def kpke_decrypt(p: dict, dk: bytes, c: bytes) -> bytes:
    """Algorithm 15."""
    k, du, dv = p["k"], p["du"], p["dv"]
    c1, c2 = c[:32 * du * k], c[32 * du * k:]
    u = [[decompress(x, du) for x in byte_decode(c1[32 * du * i:32 * du * (i + 1)], du)] for i in range(k)]
    v = [decompress(x, dv) for x in byte_decode(c2, dv)]
    s_hat = [byte_decode(dk[384 * i:384 * i + 384], 12) for i in range(k)]
    acc = [0] * N
    for i in range(k):
        acc = _add(acc, multiply_ntts(s_hat[i], ntt(u[i])))
    w = _sub(v, ntt_inv(acc))
    return byte_encode([compress(x, 1) for x in w], 1)


# -- ML-KEM (sections 6 and 7) ------------------------------------------------------------------------

def check_ek(name: str, ek: bytes) -> bool:
    """Section 7.2: the type check (length) and the modulus check (ByteEncode12(ByteDecode12(t)) == t)."""
    k = PARAMS[name]["k"]
    if len(ek) != PARAMS[name]["ek_bytes"]:
        return False
    t = ek[:384 * k]
    return b"".join(byte_encode(byte_decode(t[384 * i:384 * i + 384], 12), 12) for i in range(k)) == t


def check_dk(name: str, dk: bytes) -> bool:
    """Section 7.3: the type check (length) and the hash check H(ek) == h."""
    k = PARAMS[name]["k"]
    if len(dk) != PARAMS[name]["dk_bytes"]:
        return False
    ek = dk[384 * k:768 * k + 32]
    return H(ek) == dk[768 * k + 32:768 * k + 64]


def keygen(name: str, d: bytes, z: bytes) -> tuple[bytes, bytes]:
    """Algorithm 16: ML-KEM.KeyGen_internal(d, z) -> (ek, dk)."""
    if len(d) != 32 or len(z) != 32:
        raise ValueError("d and z are 32 bytes each")
    ek, dk_pke = kpke_keygen(PARAMS[name], d)
    return ek, dk_pke + ek + H(ek) + z


def encaps(name: str, ek: bytes, m: bytes) -> tuple[bytes, bytes]:
    """Algorithm 17: ML-KEM.Encaps_internal(ek, m) -> (K, c), after section 7.2's checks."""
    if not check_ek(name, ek):
        raise ValueError("encapsulation key: wrong length or a coefficient not below q (FIPS 203 section 7.2)")
    if len(m) != 32:
        raise ValueError("m is 32 bytes")
    key, r = G(m + H(ek))
    return key, kpke_encrypt(PARAMS[name], ek, m, r)


def decaps(name: str, dk: bytes, c: bytes) -> bytes:
    """Algorithm 18: ML-KEM.Decaps_internal(dk, c) -> K (implicit rejection), after section 7.3's checks."""
    p = PARAMS[name]
    k = p["k"]
    if len(c) != p["ct_bytes"]:
        raise ValueError("ciphertext: wrong length (FIPS 203 section 7.3)")
    if not check_dk(name, dk):
        raise ValueError("decapsulation key: wrong length or H(ek) mismatch (FIPS 203 section 7.3)")
    dk_pke = dk[:384 * k]
    ek_pke = dk[384 * k:768 * k + 32]
    h = dk[768 * k + 32:768 * k + 64]
    z = dk[768 * k + 64:768 * k + 96]
    m2 = kpke_decrypt(p, dk_pke, c)
    key2, r2 = G(m2 + h)
    key_bar = J(z + c)
    c2 = kpke_encrypt(p, ek_pke, m2, r2)
    return key2 if c == c2 else key_bar


def rejection_key(name: str, dk: bytes, c: bytes) -> bytes:
    """J(z | c): the key decaps returns for a ciphertext that does not re-encrypt to itself."""
    k = PARAMS[name]["k"]
    return J(dk[768 * k + 64:768 * k + 96] + c)
