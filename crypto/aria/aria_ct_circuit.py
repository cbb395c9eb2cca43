# SPDX-License-Identifier: MIT
"""The constant-time ARIA S-box circuit shared by the generators of rv32-ct (rv32/gen_ct.py) and
cm3-ct (armv7m/gen_ct_cm3.py): GF(2) linear algebra, the tower-field isomorphism search, the symbolic
circuit (one GF(2^8) inversion shared by SB1..SB4, lane masks selecting the affine maps), its
exhaustive check, Paar's XOR factoring, list scheduling, and the word <-> bitslice layout of the
SWAPMOVE transposition. rv32/gen_ct.py's docstring explains the construction."""
from __future__ import annotations

import itertools

# ---------------------------------------------------------------------------------------------------
# GF(2) linear algebra on 8-bit values: a matrix is a list of 8 row bitmasks (row i: input bits of
# output bit i).


def mat_apply(rows: list[int], x: int) -> int:
    y = 0
    for i, r in enumerate(rows):
        y |= (bin(r & x).count("1") & 1) << i
    return y


def mat_from_fn(f) -> list[int]:
    cols = [f(1 << j) for j in range(8)]
    return [sum(((cols[j] >> i) & 1) << j for j in range(8)) for i in range(8)]


def mat_mul(a: list[int], b: list[int]) -> list[int]:
    """a after b."""
    return mat_from_fn(lambda x: mat_apply(a, mat_apply(b, x)))


def mat_inv(a: list[int]) -> list[int]:
    table = {mat_apply(a, x): x for x in range(256)}
    assert len(table) == 256, "singular matrix"
    return mat_from_fn(lambda y: table[y])


def mat_add(a: list[int], b: list[int]) -> list[int]:
    return [x ^ y for x, y in zip(a, b)]


IDENTITY = [1 << i for i in range(8)]


def rows_of(strings: tuple[str, ...]) -> list[int]:
    return [sum(int(ch) << j for j, ch in enumerate(s)) for s in strings]


# ARIA's affine matrices (ARIA specification; the same strings as mcucrypt/models/aria.py).
B = rows_of(("10001111", "11000111", "11100011", "11110001", "11111000", "01111100", "00111110", "00011111"))
C = rows_of(("01011110", "00111101", "11010111", "10011101", "00101100", "10000001", "01011101", "11010011"))


def gf_mul(a: int, b: int) -> int:
    """GF(2^8) modulo x^8 + x^4 + x^3 + x + 1, the field of ARIA's and AES's S-boxes."""
    r = 0
    while b:
        if b & 1:
            r ^= a
        a <<= 1
        if a & 0x100:
            a ^= 0x11B
        b >>= 1
    return r


def gf_inv(x: int) -> int:
    if x == 0:
        return 0
    return next(y for y in range(1, 256) if gf_mul(x, y) == 1)


F = mat_from_fn(lambda x: gf_mul(x, x))
C_PRIME = mat_mul(C, mat_mul(F, mat_mul(F, F)))          # SB2(x) = C'.inv(x) + 0xE2

# The S-boxes from their definitions (the check below compares the circuit against these).
INV = [gf_inv(x) for x in range(256)]
SB1 = [mat_apply(B, INV[x]) ^ 0x63 for x in range(256)]
SB2 = [mat_apply(C_PRIME, INV[x]) ^ 0xE2 for x in range(256)]
SB3 = [0] * 256
SB4 = [0] * 256
for _x in range(256):
    SB3[SB1[_x]] = _x
    SB4[SB2[_x]] = _x

# ---------------------------------------------------------------------------------------------------
# The tower field. GF(4) elements are 2-bit (hi, lo) = hi.w + lo with w^2 = w + 1; GF(16) = (A1, A0) =
# A1.z + A0 over GF(4) with z^2 = z + nu; GF(256) = (a1, a0) = a1.y + a0 over GF(16) with y^2 = y + mu.


def m4(a: int, b: int) -> int:
    a1, a0, b1, b0 = a >> 1, a & 1, b >> 1, b & 1
    p1, p0, pm = a1 & b1, a0 & b0, (a1 ^ a0) & (b1 ^ b0)
    return ((pm ^ p0) << 1) | (p1 ^ p0)


def make_m16(nu: int):
    def m16(a: int, b: int) -> int:
        a1, a0, b1, b0 = a >> 2, a & 3, b >> 2, b & 3
        p1, p0, pm = m4(a1, b1), m4(a0, b0), m4(a1 ^ a0, b1 ^ b0)
        return ((pm ^ p0) << 2) | (m4(nu, p1) ^ p0)
    return m16


def make_m256(nu: int, mu: int):
    m16 = make_m16(nu)

    def m256(a: int, b: int) -> int:
        a1, a0, b1, b0 = a >> 4, a & 15, b >> 4, b & 15
        p1, p0, pm = m16(a1, b1), m16(a0, b0), m16(a1 ^ a0, b1 ^ b0)
        return ((pm ^ p0) << 4) | (m16(mu, p1) ^ p0)
    return m256


def is_field(mul, n: int) -> bool:
    return all(any(mul(a, b) == 1 for b in range(1, n)) for a in range(1, n))


def isomorphisms():
    """(nu, mu, X): X maps the AES field's polynomial basis into a tower (a root of the AES polynomial)."""
    for nu in (2, 3):
        if not is_field(make_m16(nu), 16):
            continue
        for mu in range(1, 16):
            m256 = make_m256(nu, mu)
            if not is_field(m256, 256):
                continue

            def tpow(a: int, e: int) -> int:
                r = 1
                while e:
                    if e & 1:
                        r = m256(r, a)
                    a = m256(a, a)
                    e >>= 1
                return r
            for beta in range(2, 256):
                if tpow(beta, 8) ^ tpow(beta, 4) ^ tpow(beta, 3) ^ beta ^ 1 == 0:
                    cols = [tpow(beta, j) for j in range(8)]
                    yield nu, mu, [sum(((cols[j] >> i) & 1) << j for j in range(8)) for i in range(8)]


# ---------------------------------------------------------------------------------------------------
# The circuit, symbolically: linear signals are bitmasks over "base" signals (inputs, AND outputs,
# masked values and checkpoints).


class Circuit:
    def __init__(self) -> None:
        self.nodes: list[tuple] = []        # (kind, id, operand a, operand b or mask name)

    def _base(self, kind: str, a=None, b=None) -> int:
        i = len(self.nodes)
        self.nodes.append((kind, i, a, b))
        return 1 << i

    def input(self) -> int:
        return self._base("in")

    def AND(self, a: int, b: int) -> int:
        return self._base("and", a, b)

    def mask(self, a: int, m: str) -> int:
        return 0 if a == 0 else self._base("mask", a, m)

    def checkpoint(self, a):
        """Materialise a linear combination as a signal of its own (later terms refer to it)."""
        if isinstance(a, tuple):
            return tuple(self.checkpoint(e) for e in a)
        if a == 0 or a & (a - 1) == 0:
            return a
        return self._base("lin", a)


def lin_apply(rows: list[int], bits: list[int]) -> list[int]:
    out = []
    for r in rows:
        v = 0
        for j, b in enumerate(bits):
            if (r >> j) & 1:
                v ^= b
        out.append(v)
    return out


def build(nu: int, mu: int, X: list[int]) -> tuple[Circuit, list[int]]:
    c = Circuit()
    x = [c.input() for _ in range(8)]
    Xi = mat_inv(X)
    u = lin_apply(X, x)
    v = lin_apply(mat_mul(X, mat_add(mat_inv(B), IDENTITY)), x)
    w = lin_apply(mat_mul(X, mat_add(mat_inv(C_PRIME), IDENTITY)), x)
    u = [c.checkpoint(e) for e in u]
    a = [c.checkpoint(u[i] ^ c.mask(v[i], "M3") ^ c.mask(w[i], "M4")) for i in range(8)]
    z = tower_inverse(c, nu, mu, a)
    p = [c.checkpoint(e) for e in lin_apply(Xi, z)]
    q = lin_apply(mat_mul(mat_add(B, IDENTITY), Xi), z)
    r = lin_apply(mat_mul(mat_add(C_PRIME, IDENTITY), Xi), z)
    y = [p[i] ^ c.mask(q[i], "M1") ^ c.mask(r[i], "M2") for i in range(8)]
    return c, y


# One S-box type without masks (rv32-ct-multi, where every word holds one type): type t computes
# Out_t(inv(In_t(x))), the constants CIN/COUT being in the round keys as for build().
TYPE_MAPS = {1: (IDENTITY, B), 2: (IDENTITY, C_PRIME), 3: (mat_inv(B), IDENTITY), 4: (mat_inv(C_PRIME), IDENTITY)}


def build_typed(nu: int, mu: int, X: list[int], t: int) -> tuple[Circuit, list[int]]:
    In, Out = TYPE_MAPS[t]
    c = Circuit()
    x = [c.input() for _ in range(8)]
    a = [c.checkpoint(e) for e in lin_apply(mat_mul(X, In), x)]
    z = tower_inverse(c, nu, mu, a)
    return c, lin_apply(mat_mul(Out, mat_inv(X)), z)


def check_typed(c: Circuit, y: list[int], t: int) -> None:
    """All 256 inputs of S-box type t (1..4), constants as the key schedule folds them."""
    ins = [sum(((x >> b) & 1) << x for x in range(256)) for b in range(8)]
    out = evaluate(c, y, ins, {})
    sbox = (SB1, SB2, SB3, SB4)[t - 1]
    for x in range(256):
        got = sum(((out[b] >> x) & 1) << b for b in range(8))
        if got != sbox[x ^ CIN[t - 1]] ^ COUT[t - 1]:
            raise AssertionError(f"typed circuit wrong for type {t}, input {x:#04x}")


# The GF(16) inversion of Boyar and Peralta's AES S-box circuit (the gates t25..t40 of ePrint 2011/332:
# inputs t21..t24, outputs t29 t33 t37 t40): 5 AND + 11 XOR against 9 AND for the GF(4) tower below. It
# inverts in a basis of its own; bp_inv16_maps finds the linear maps P (into its inputs) and Q (out of
# its outputs) that make it the inversion of GF(16) in this tower's basis.
def bp_inv16(v: int) -> int:
    t21, t22, t23, t24 = (v >> 3) & 1, (v >> 2) & 1, (v >> 1) & 1, v & 1
    t25 = t21 ^ t22
    t26 = t21 & t23
    t27 = t24 ^ t26
    t29 = (t25 & t27) ^ t22
    t31 = t22 ^ t26
    t33 = (t31 & (t23 ^ t24)) ^ t24
    t35 = t27 ^ t33
    t36 = t24 & t35
    t37 = t36 ^ t23 ^ t33
    t40 = t25 ^ (t29 & (t27 ^ t36))
    return (t29 << 3) | (t33 << 2) | (t37 << 1) | t40


def bp_inv16_maps(nu: int) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every (P, Q): P four row masks over the 4 tower bits (row i feeds t21 + i), Q the tower value
    of each BP output bit (index k: bit k of t29 t33 t37 t40 read as bits 3..0); fewest bits first."""
    m16 = make_m16(nu)
    inv = [0] + [next(b for b in range(1, 16) if m16(a, b) == 1) for a in range(1, 16)]
    out = []
    for rows in itertools.product(range(1, 16), repeat=4):
        imgs = [sum((bin(r & x).count("1") & 1) << (3 - i) for i, r in enumerate(rows)) for x in range(16)]
        if len(set(imgs)) != 16:
            continue
        qmap = {bp_inv16(imgs[a]): inv[a] for a in range(16)}
        if all(qmap[(1 << k) ^ y] == qmap[1 << k] ^ qmap[y] for k in range(4) for y in range(16)):
            q = tuple(qmap[1 << k] for k in range(4))
            out.append((rows, q))
    return sorted(out, key=lambda pq: (sum(bin(r).count("1") for r in pq[0] + pq[1]), pq))


def tower_inverse(c: Circuit, nu: int, mu: int, a: list[int], inv16_pq=None) -> list[int]:
    """The GF(2^8) inversion of the tower element a (8 signals, bit i = a[i]) as AND gates and linear
    signals; returns the 8 signals of the inverse (checkpointed). With inv16_pq (one of bp_inv16_maps)
    the GF(16) inversion is Boyar and Peralta's."""
    def add4(p, q):
        return (p[0] ^ q[0], p[1] ^ q[1])

    def mul4(p, q):
        p1, p0 = c.AND(p[0], q[0]), c.AND(p[1], q[1])
        pm = c.AND(p[0] ^ p[1], q[0] ^ q[1])
        return (pm ^ p0, p1 ^ p0)

    def const4(k, p):
        cw, c1 = m4(k, 2), m4(k, 1)
        return ((p[0] if cw & 2 else 0) ^ (p[1] if c1 & 2 else 0),
                (p[0] if cw & 1 else 0) ^ (p[1] if c1 & 1 else 0))

    def sq4(p):
        return (p[0], p[0] ^ p[1])

    def add16(p, q):
        return (add4(p[0], q[0]), add4(p[1], q[1]))

    def mul16(p, q):
        p1, p0 = mul4(p[0], q[0]), mul4(p[1], q[1])
        pm = mul4(add4(p[0], p[1]), add4(q[0], q[1]))
        return (add4(pm, p0), add4(const4(nu, p1), p0))

    def sq16(p):
        s1, s0 = sq4(p[0]), sq4(p[1])
        return (s1, add4(const4(nu, s1), s0))

    def const16(k, p):
        m16 = make_m16(nu)
        bits = [p[1][1], p[1][0], p[0][1], p[0][0]]
        out = [0, 0, 0, 0]
        for j in range(4):
            img = m16(k, 1 << j)
            for i in range(4):
                if (img >> i) & 1:
                    out[i] ^= bits[j]
        return ((out[3], out[2]), (out[1], out[0]))

    def inv16(d):
        d1, d0 = d
        delta = c.checkpoint(add4(add4(const4(nu, sq4(d1)), mul4(d1, d0)), sq4(d0)))
        e = sq4(delta)                      # delta^-1 = delta^2 in GF(4)
        return (mul4(d1, e), mul4(add4(d0, d1), e))

    def inv16_bp(d):
        P, Q = inv16_pq
        bits = {3: d[0][0], 2: d[0][1], 1: d[1][0], 0: d[1][1]}
        t21, t22, t23, t24 = (c.checkpoint(lin_apply([r], [bits[k] for k in range(4)])[0]) for r in P)
        t25 = t21 ^ t22
        t26 = c.AND(t21, t23)
        t27 = t24 ^ t26
        t29 = c.checkpoint(c.AND(t25, t27) ^ t22)
        t31 = t22 ^ t26
        t33 = c.checkpoint(c.AND(t31, t23 ^ t24) ^ t24)
        t35 = t27 ^ t33
        t36 = c.AND(t24, t35)
        t37 = t36 ^ t23 ^ t33
        t40 = t25 ^ c.AND(t29, t27 ^ t36)
        hv = {3: t29, 2: t33, 1: t37, 0: t40}
        o = [0, 0, 0, 0]
        for k in range(4):
            for m in range(4):
                if (Q[k] >> m) & 1:
                    o[m] ^= hv[k]
        return ((o[3], o[2]), (o[1], o[0]))

    a1 = ((a[7], a[6]), (a[5], a[4]))
    a0 = ((a[3], a[2]), (a[1], a[0]))
    # (a1.y + a0)^-1 = (a1.y + a0 + a1) / (mu.a1^2 + a1.a0 + a0^2)
    delta = c.checkpoint(add16(add16(const16(mu, sq16(a1)), mul16(a1, a0)), sq16(a0)))
    dinv = c.checkpoint(inv16(delta) if inv16_pq is None else inv16_bp(delta))
    r1, r0 = mul16(a1, dinv), mul16(add16(a0, a1), dinv)
    z = [c.checkpoint(s) for s in (r0[1][1], r0[1][0], r0[0][1], r0[0][0],
                                   r1[1][1], r1[1][0], r1[0][1], r1[0][0])]
    return z


def evaluate(c: Circuit, y: list[int], inputs: list[int], masks: dict[str, int]) -> list[int]:
    val: dict[int, int] = {}

    def ev(vec: int) -> int:
        r, i = 0, 0
        while vec:
            if vec & 1:
                r ^= val[i]
            vec >>= 1
            i += 1
        return r
    k = 0
    for kind, i, a, b in c.nodes:
        if kind == "in":
            val[i] = inputs[k]
            k += 1
        elif kind == "and":
            val[i] = ev(a) & ev(b)
        elif kind == "mask":
            val[i] = ev(a) & masks[b]
        else:
            val[i] = ev(a)
    return [ev(v) for v in y]


CIN = (0, 0, 0x63, 0xE2)        # constants the key schedule adds before SB1..SB4 lanes
COUT = (0x63, 0xE2, 0, 0)       # and after them


def check_circuit(c: Circuit, y: list[int], fin: list[int] | None = None, fout: list[int] | None = None,
                  what: str = "circuit") -> None:
    """All 256 inputs of each of the four lane types at once (1024 lanes); with fin/fout the circuit works
    on a linear form of the state: it takes fin(x) and must give fout(S(x))."""
    ins = [0] * 8
    for t in range(4):
        for x in range(256):
            fx = mat_apply(fin, x) if fin else x
            for b in range(8):
                if (fx >> b) & 1:
                    ins[b] |= 1 << (256 * t + x)
    block = (1 << 256) - 1
    out = evaluate(c, y, ins, {"M1": block, "M2": block << 256, "M3": block << 512, "M4": block << 768})
    for t, sbox in enumerate((SB1, SB2, SB3, SB4)):
        for x in range(256):
            got = sum(((out[b] >> (256 * t + x)) & 1) << b for b in range(8))
            want = sbox[x ^ CIN[t]] ^ COUT[t]
            if got != (mat_apply(fout, want) if fout else want):
                raise AssertionError(f"{what} wrong for type {t + 1}, input {x:#04x}")


# ---------------------------------------------------------------------------------------------------
# From the symbolic circuit to a straight-line program.


def paar(targets: list[int]) -> list[tuple[int, int, int]]:
    """Paar's greedy algorithm: repeatedly XOR the pair of signals that occurs in most targets."""
    sets = [set(1 << i for i in range(v.bit_length()) if (v >> i) & 1) for v in targets]
    ops = []
    while True:
        counts: dict[tuple[int, int], int] = {}
        for s in sets:
            if len(s) < 2:
                continue
            items = sorted(s)
            for i in range(len(items)):
                for j in range(i + 1, len(items)):
                    counts[(items[i], items[j])] = counts.get((items[i], items[j]), 0) + 1
        if not counts:
            return ops
        best = max(counts.values())
        pa, pb = min(p for p, n in counts.items() if n == best)
        ops.append((pa ^ pb, pa, pb))
        for s in sets:
            if pa in s and pb in s:
                s.discard(pa)
                s.discard(pb)
                s.add(pa ^ pb)


def to_program(c: Circuit, y: list[int]) -> tuple[list[tuple], list[int]]:
    """Ops ('in', v) / ('xor', v, a, b) / ('and', v, a, b) / ('mask', v, a, name) over signal names
    (the bit vectors), checkpoints resolved; the linear parts between nonlinear layers by Paar."""
    level: dict[int, int] = {}

    def vlevel(v: int) -> int:
        lv, i = 0, 0
        while v:
            if v & 1:
                lv = max(lv, level[i])
            v >>= 1
            i += 1
        return lv
    for kind, i, a, b in c.nodes:
        if kind == "in":
            level[i] = 0
        elif kind == "lin":
            level[i] = vlevel(a) + 1
        else:
            level[i] = 1 + max(vlevel(a), vlevel(b) if kind == "and" else 0)
    top = max(level.values())
    avail: set[int] = set()
    alias: dict[int, int] = {}
    prog: list[tuple] = []
    for kind, i, a, b in c.nodes:
        if kind == "in":
            prog.append(("in", 1 << i))
            avail.add(1 << i)
    for lv in range(1, top + 2):
        batch = [n for n in c.nodes if n[0] != "in" and level[n[1]] == lv]
        need = list(y) if lv == top + 1 else []
        for kind, i, a, b in batch:
            need.append(a)
            if kind == "and":
                need.append(b)
        need = [v for v in dict.fromkeys(need) if v not in avail]
        for nv, pa, pb in paar(need):
            if nv not in avail:
                prog.append(("xor", nv, pa, pb))
                avail.add(nv)
        for kind, i, a, b in batch:
            if kind == "lin":
                alias[1 << i] = a
            elif kind == "and":
                prog.append(("and", 1 << i, a, b))
            else:
                prog.append(("mask", 1 << i, a, b))
            avail.add(1 << i)

    def resolve(v):
        while isinstance(v, int) and v in alias:
            v = alias[v]
        return v
    prog = [(p[0], p[1]) + tuple(resolve(v) for v in p[2:]) for p in prog]
    return prog, [resolve(v) for v in y]


def schedule(prog: list[tuple], outputs: list[int]) -> list[tuple]:
    """Greedy list scheduling: among the ready operations, prefer one that ends the most lifetimes."""
    order = [p for p in prog if p[0] == "in"]
    ops = [p for p in prog if p[0] != "in"]
    uses: dict[int, int] = {}
    for p in ops:
        for v in set(p[2:]):
            if isinstance(v, int):
                uses[v] = uses.get(v, 0) + 1
    keep = set(outputs)
    done = {p[1] for p in order}
    pending = list(range(len(ops)))
    while pending:
        def cost(i: int) -> tuple[int, int]:
            p = ops[i]
            freed = sum(1 for v in set(p[2:]) if isinstance(v, int) and uses[v] == 1 and v not in keep)
            return (1 - freed, i)
        ready = [i for i in pending if all(not isinstance(v, int) or v in done for v in ops[i][2:])]
        i = min(ready, key=cost)
        pending.remove(i)
        p = ops[i]
        order.append(p)
        done.add(p[1])
        for v in set(p[2:]):
            if isinstance(v, int):
                uses[v] -= 1
    return order


def best_circuit() -> tuple[int, int, list[int], Circuit, list[int], list[tuple]]:
    best = None
    for nu, mu, X in isomorphisms():
        c, y = build(nu, mu, X)
        prog, yy = to_program(c, y)
        n = sum(1 for p in prog if p[0] == "xor")
        if best is None or n < best[0]:
            best = (n, nu, mu, X, c, y, prog, yy)
    _, nu, mu, X, c, y, prog, yy = best
    check_circuit(c, y)
    return nu, mu, X, prog, yy


# ---------------------------------------------------------------------------------------------------
# The word <-> bitslice conversion, simulated symbolically to find where each bit lands.

M55, M33, M0F = 0x55555555, 0x33333333, 0x0F0F0F0F
# SWAPMOVE(a, b, mask, n): t = ((a >> n) ^ b) & mask; b ^= t; a ^= t << n.
TRANSPOSE = [(1, 0, M55, 1), (3, 2, M55, 1), (2, 0, M33, 2), (3, 1, M33, 2)]


def slice_layout() -> tuple[list[tuple[int, int]], dict[tuple[int, int], int]]:
    """Run the SWAPMOVEs and the nibble split on symbolic bits (word w, bit k). Returns, for each of
    the 8 slices (register r = 2*word + half), which state bit position (bit b of byte j) it holds and
    where each lane lands: lane[(w, j)] = bit position within the slice."""
    regs = [[(w, k) for k in range(32)] for w in range(4)]
    for ai, bi, mask, n in TRANSPOSE:
        a, b = regs[ai][:], regs[bi][:]
        for pos in range(32):
            if (mask >> pos) & 1:
                # bit pos of b swaps with bit pos+n of a
                a[pos + n], b[pos] = regs[bi][pos], regs[ai][pos + n]
        regs[ai], regs[bi] = a, b
    slices = []
    lanes: dict[tuple[int, int], int] = {}
    for r in range(4):
        for half in range(2):
            bits = {}
            for pos in range(32):
                if (M0F >> pos) & 1:
                    w, k = regs[r][pos + 4 * half]
                    bits[pos] = (w, k)
            plane = {k % 8 for (_, k) in bits.values()}
            assert len(plane) == 1, "a slice must hold one bit position"
            b = plane.pop()
            for pos, (w, k) in bits.items():
                lane = (w, k // 8)
                assert lanes.get(lane, pos) == pos, "lane positions must agree across slices"
                lanes[lane] = pos
            slices.append((b, r))
    return slices, lanes


# ---------------------------------------------------------------------------------------------------
# Rank-masked corrections (cm3-ct, armv7m/gen_ct_cm3.py): a per-type linear correction of rank k, written
# E.R with R k x 8, is masked after R: (E.R.v) & M = E.((R.v) & M), because a lane mask commutes with any
# per-lane linear map: k lane-mask ANDs instead of 8.


def mat_rank_factor(m: list[int]) -> tuple[list[int], list[int]]:
    """m = E.R: R's rows a basis of m's row space taken from m's rows, E (8 rows over len(R) bits)."""
    basis: list[int] = []
    span = {0: 0}                               # vector -> combination of basis rows
    for row in m:
        if row not in span:
            k = len(basis)
            basis.append(row)
            span.update({v ^ row: c | (1 << k) for v, c in list(span.items())})
    return basis, [span[row] for row in m]


def masked_map(c: Circuit, m: list[int], sig: list[int], name: str) -> list[int]:
    """The signals m.sig in the lanes of mask name (zero elsewhere), masked at m's rank."""
    R, E = mat_rank_factor(m)
    u = [c.mask(v, name) for v in lin_apply(R, sig)]
    return [lin_apply([e], u)[0] for e in E]
