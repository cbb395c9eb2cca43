# SPDX-License-Identifier: MIT
"""Generate aes128_bs_avr.S: constant-time AES-128 (FIPS 197) for the 8-bit AVR (ATmega128) with no table
look-up at all, implementation avr-bitsliced.

    python3 gen_aes_bs_avr.py            (writes aes128_bs_avr.S beside this file; --check compares)

One block, bitsliced: the 16 state bytes become eight 16-bit planes (plane k = bit k of every byte), one
register pair each (r2:r3 = plane 0 ... r16:r17 = plane 7). Inside a plane the low register holds rows 0
(bits 0..3) and 2 (bits 4..7), the high one rows 1 and 3, bit = column within the nibble, so that moving
every row up by one (MixColumns) is (lo, hi) -> (hi, SWAP lo).
- SubBytes: the Boyar-Peralta circuit (32 AND, 81 XOR; its NOTs folded into the round keys, as
  crypto/aes/rv32/gen_aes_bitsliced.py does) on the eight planes, 16 S-boxes at a time. The AVR is a
  two-operand machine with MOVW: a gate is two EOR/AND on the pair, plus one MOVW when neither operand
  dies. The gate order comes from aes128_bs_avr_order.json (simulated annealing, --search) and the values
  are allocated over 15 register pairs with Belady eviction (the value used furthest ahead is stored to
  the frame with two STD).
- ShiftRows on the planes: row 2 a delta swap in the low register (9 cycles), rows 1 and 3 nibble
  rotations in the high register (LSL/LSR, BST/BLD, a masked merge: 10 cycles).
- MixColumns: rot1(a) = (hi, SWAP lo), rot2(a) = (SWAP lo, SWAP hi); u = a ^ rot1(a) and b = rot1(a) ^
  rot2(u) ^ xtime(u), xtime on planes a renaming plus three XORs of u7: 14 cycles a plane; the round key
  is added on the way (LD lo, X+ / EOR lo, t instead of MOV lo, t; LD / EOR for hi): 5 more.
- AddRoundKey: the round keys are stored as planes (LD X+ / EOR); the key schedule is bytewise with
  SubWord through the same circuit (w3 alone transposed in and out, 4 of the 16 positions), then
  transposes each round key and complements the planes of 0x63 in round keys 1..10 (the circuit's
  missing NOTs; MixColumns and ShiftRows leave an all-0x63 state as it is).
- The transposition in and out: two 8x8 bit-matrix transposes by SWAPMOVE (92 cycles each) plus the loads
  or stores, about 220 cycles a block each way. ShiftRows commutes with SubBytes: the first round's is done
  by the addresses the input is loaded from (round key 0 transposed the same way), the last round's by
  those the output is stored to (round key 10 with the inverse shift); eight ShiftRows remain.
No instruction has a secret-dependent address or branch: the only branches count rounds.
The generator interprets its own code (a small AVR model below) on random keys and blocks against FIPS 197
before it writes anything, and counts cycles.
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "common"))
sys.path.insert(0, str(HERE.parent / "rv32"))
from gen_aes_avr import gmul, sbox as sbox_table  # noqa: E402
from gen_aes_bitsliced import GATES as BP_GATES  # noqa: E402
from generated import write_or_check  # noqa: E402  (crypto/common, beside the generators)

SBOX = sbox_table()

# The circuit of Boyar and Peralta, as the E31 generator holds it (x0 = most significant input bit, s0 =
# most significant output bit), with its XNORs written as XORs: the result is S(x) ^ 0x63.
GATES: list[tuple[str, str, str, str]] = [(d, {"xor": "eor", "and": "and"}[op], a, b)
                                           for d, op, a, b in BP_GATES]
SBOX_NOT = 0x63

# Register map (pairs named by their low register).
PLANE = [2 + 2 * k for k in range(8)]             # canonical plane k: r(2+2k):r(3+2k)
POOL = [0] + list(range(2, 27, 2)) + [30]          # the S-box's 15 pairs (all but Y, the frame)
U7, UA, UB = 18, 20, 22                            # MixColumns: u7 and two rolling u planes
TMP = 24                                           # ANDI needs r16..r31
SAVED = list(range(2, 18)) + [28, 29]

# Frame (Y + offset; Y = SP + 1): spill slots first, then the pointers.
SPILL = 0


def check_circuit() -> None:
    for v in range(256):
        env = {f"x{i}": (v >> (7 - i)) & 1 for i in range(8)}
        for d, op, a, b in GATES:
            env[d] = env[a] ^ env[b] if op == "eor" else env[a] & env[b]
        out = sum(env[f"s{i}"] << (7 - i) for i in range(8))
        assert out ^ SBOX_NOT == SBOX[v], (v, out)


# ---------------------------------------------------------------------------------------------------------
# Cycle costs of the instructions we emit (ATmega128; LD/ST/LDD/STD 2, PUSH/POP 2, RCALL 3, RET 4).
CYC = {"ld": 2, "st": 2, "ldd": 2, "std": 2, "push": 2, "pop": 2, "rcall": 3, "ret": 4, "sbiw": 2,
       "adiw": 2}


class Code:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.ins: list[tuple] = []

    def e(self, op: str, *args) -> None:
        self.ins.append((op,) + args)
        self.lines.append(f"    {op:<6}" + ", ".join(str(a) for a in args) if args else f"    {op}")

    def label(self, name: str) -> None:
        self.ins.append(("label", name))
        self.lines.append(f"{name}:")

    def cycles(self) -> int:
        return sum(CYC.get(i[0], 1) for i in self.ins if i[0] != "label")


def R(n: int) -> str:
    return f"r{n}"


# ---------------------------------------------------------------------------------------------------------
# S-box: gate order search and allocation

def deps_order(seed: int) -> list[int]:
    """A topological order of GATES: greedy, preferring gates that let an operand die (fewer live values),
    ties broken by a seeded random draw."""
    rng = random.Random(seed)
    users: dict[str, int] = {}
    for d, _, a, b in GATES:
        for v in (a, b):
            users[v] = users.get(v, 0) + 1
    for i in range(8):
        users[f"s{i}"] = users.get(f"s{i}", 0) + 1
    left = dict(users)
    done: set[str] = {f"x{i}" for i in range(8)}
    order: list[int] = []
    pending = set(range(len(GATES)))
    while pending:
        ready = [i for i in pending if all(v in done for v in GATES[i][2:])]

        def score(i: int) -> tuple:
            d, _, a, b = GATES[i]
            kills = sum(1 for v in (a, b) if left[v] == 1)
            return (kills, rng.random())
        i = max(ready, key=score)
        d, _, a, b = GATES[i]
        for v in (a, b):
            left[v] -= 1
        done.add(d)
        order.append(i)
        pending.remove(i)
    assert len(order) == len(GATES)
    return order


def allocate_sbox(order: list[int], spill_base: int) -> tuple[Code, int]:
    """x_i is plane 7 - i on entry and s_i goes to plane 7 - i on exit. Returns the code and slots used."""
    gates = [GATES[i] for i in order]
    uses: dict[str, list[int]] = {}
    for i, (d, op, a, b) in enumerate(gates):
        for v in (a, b):
            uses.setdefault(v, []).append(i)
    end = len(gates)
    outs = [f"s{i}" for i in range(8)]
    for v in outs:
        uses.setdefault(v, []).append(end)
    INF = 1 << 30

    def next_use(v: str, i: int) -> int:
        for u in uses.get(v, []):
            if u >= i:
                return u
        return INF

    reg: dict[str, int] = {f"x{i}": PLANE[7 - i] for i in range(8)}
    holder: dict[int, str] = {r: v for v, r in reg.items()}
    free = [r for r in POOL if r not in holder]
    slot: dict[str, int] = {}
    free_slots: list[int] = []
    nslots = 0
    c = Code()

    def get(i: int, keep: set[str]) -> int:
        nonlocal nslots
        if free:
            return free.pop(0)
        victim = max((v for v in holder.values() if v not in keep),
                     key=lambda v: (next_use(v, i), v in slot))
        r = reg.pop(victim)
        del holder[r]
        if victim not in slot:
            if free_slots:
                slot[victim] = free_slots.pop()
            else:
                slot[victim] = spill_base + 2 * nslots
                nslots += 1
            c.e("std", f"Y+{slot[victim]}", R(r))
            c.e("std", f"Y+{slot[victim] + 1}", R(r + 1))
        return r

    def load(v: str, i: int, keep: set[str]) -> None:
        r = get(i, keep)
        c.e("ldd", R(r), f"Y+{slot[v]}")
        c.e("ldd", R(r + 1), f"Y+{slot[v] + 1}")
        reg[v] = r
        holder[r] = v

    def kill(v: str) -> None:
        if v in slot:
            free_slots.append(slot.pop(v))
        r = reg.pop(v)
        del holder[r]
        free.append(r)

    for i, (d, op, a, b) in enumerate(gates):
        for v in (a, b):
            if v not in reg:
                load(v, i, {a, b})
        dead = [v for v in (a, b) if next_use(v, i + 1) == INF]
        if dead:
            dst = dead[0]
            other = b if dst == a else a
            r = reg[dst]
            c.e(op, R(r), R(reg[other]))
            c.e(op, R(r + 1), R(reg[other] + 1))
            for v in dead[1:]:
                kill(v)
            if dst in slot:
                free_slots.append(slot.pop(dst))
            del reg[dst]
            reg[d] = r
            holder[r] = d
        else:
            r = get(i, {a, b})
            c.e("movw", R(r), R(reg[a]))
            c.e(op, R(r), R(reg[b]))
            c.e(op, R(r + 1), R(reg[b] + 1))
            reg[d] = r
            holder[r] = d
    # outputs to their planes: a parallel move of the pairs in registers, then the spilled ones
    target = {f"s{i}": PLANE[7 - i] for i in range(8)}
    moves = {reg[v]: target[v] for v in outs if v in reg and reg[v] != target[v]}
    c.lines.append("    // outputs to their planes")
    while moves:
        busy = set(moves)
        ready = [s for s, t in moves.items() if t not in busy]
        if ready:
            s = ready[0]
            c.e("movw", R(moves[s]), R(s))
            del moves[s]
        else:                                     # a cycle: park one source in a pair nobody needs
            used = set(moves) | set(moves.values()) | set(target.values())
            spare = next(p for p in POOL if p not in used)
            s = next(iter(moves))
            c.e("movw", R(spare), R(s))
            moves[spare] = moves.pop(s)
    for v in outs:
        if v not in reg:
            c.e("ldd", R(target[v]), f"Y+{slot[v]}")
            c.e("ldd", R(target[v] + 1), f"Y+{slot[v] + 1}")
    return c, nslots


ORDER_FILE = HERE / "aes128_bs_avr_order.json"


def is_topological(order: list[int]) -> bool:
    seen = {f"x{i}" for i in range(8)}
    for i in order:
        d, _, a, b = GATES[i]
        if a not in seen or b not in seen:
            return False
        seen.add(d)
    return sorted(order) == list(range(len(GATES)))


def search_order(start: list[int], iters: int, seed: int, spill_base: int) -> list[int]:
    """Simulated annealing over topological orders: move one gate to a random place between its operands'
    producers and its first user; the cost is the allocated S-box's cycle count."""
    import math
    rng = random.Random(seed)

    def cost(o: list[int]) -> int:
        return allocate_sbox(o, spill_base)[0].cycles()
    cur, cc = list(start), cost(start)
    best, bc = list(cur), cc
    for it in range(iters):
        o = list(cur)
        g = o.pop(rng.randrange(len(o)))
        d, _, a, b = GATES[g]
        lo, hi = 0, len(o)
        for k, x in enumerate(o):
            dx, _, ax, bx = GATES[x]
            if dx in (a, b):
                lo = max(lo, k + 1)
            if d in (ax, bx):
                hi = min(hi, k)
        if lo > hi:
            continue
        o.insert(rng.randint(lo, hi), g)
        c2 = cost(o)
        temp = 8.0 * (1 - it / iters) + 0.01
        if c2 <= cc or rng.random() < math.exp((cc - c2) / temp):
            cur, cc = o, c2
            if c2 < bc:
                best, bc = list(o), c2
    return best


def best_sbox(spill_base: int) -> tuple[Code, int, list[int]]:
    """The gate order of ORDER_FILE (written by --search), else the best of 300 seeded greedy orders."""
    if ORDER_FILE.exists():
        order = json.loads(ORDER_FILE.read_text())
        assert is_topological(order), f"{ORDER_FILE}: not an order of the circuit's gates"
        c, n = allocate_sbox(order, spill_base)
        return c, n, order
    best = None
    for seed in range(300):
        order = deps_order(seed)
        c, n = allocate_sbox(order, spill_base)
        if best is None or c.cycles() < best[0].cycles():
            best = (c, n, order)
    return best


# ---------------------------------------------------------------------------------------------------------
# Linear layers on the planes

def shiftrows(c: Code) -> None:
    """Row r rotates left by r columns: new (r, c) = old (r, c + r); 19 cycles a plane."""
    t = R(TMP)
    for k in range(8):
        lo, hi = R(PLANE[k]), R(PLANE[k] + 1)
        # row 2 (bits 4..7 of lo) by 2: exchange bits 4, 5 with 6, 7 (delta swap)
        c.e("mov", t, lo)
        c.e("lsr", t)
        c.e("lsr", t)
        c.e("eor", t, lo)
        c.e("andi", t, "0x30")
        c.e("eor", lo, t)
        c.e("lsl", t)
        c.e("lsl", t)
        c.e("eor", lo, t)
        # row 3 (bits 4..7 of hi) by 3, a nibble rotation left by one, built in t
        c.e("mov", t, hi)
        c.e("lsl", t)
        c.e("bst", hi, 7)
        c.e("bld", t, 4)
        # row 1 (bits 0..3 of hi) by 1, a nibble rotation right by one, in place
        c.e("bst", hi, 0)
        c.e("lsr", hi)
        c.e("bld", hi, 3)
        c.e("eor", t, hi)                         # hi's high nibble from t
        c.e("andi", t, "0xF0")
        c.e("eor", hi, t)


def mixcolumns_ark(c: Code) -> None:
    """MixColumns then AddRoundKey (X = the round key's planes, advanced). With lo = rows 0 | 2 and
    hi = rows 1 | 3: rot1(a) = (hi, swap(lo)) and rot2(a) = (swap(lo), swap(hi)).
    u = a ^ rot1(a) = (lo ^ hi, hi ^ swap(lo)); b = rot1(a) ^ rot2(u) ^ xtime(u) gives
    b.lo = u.hi ^ swap(hi) ^ xtime(u).lo and b.hi = swap(u.lo) ^ lo ^ xtime(u).hi: 14 cycles a plane, and
    the round key costs 5 more (the MOV that puts b.lo in place becomes LD lo, X+ / EOR lo, t)."""
    t = R(TMP)

    def make_u(k: int, u: int) -> None:
        lo, hi = R(PLANE[k]), R(PLANE[k] + 1)
        c.e("mov", R(u), lo)
        c.e("eor", R(u), hi)
        c.e("mov", R(u + 1), lo)
        c.e("swap", R(u + 1))
        c.e("eor", R(u + 1), hi)

    make_u(7, U7)
    prev = U7
    for k in range(8):
        if k == 7:
            u = U7
        else:
            u = UA if prev != UA else UB
            make_u(k, u)
        lo, hi = R(PLANE[k]), R(PLANE[k] + 1)
        c.e("mov", t, hi)
        c.e("swap", t)
        c.e("eor", t, R(u + 1))                   # t = b.lo but xtime
        c.e("mov", hi, R(u))
        c.e("swap", hi)
        c.e("eor", hi, lo)                        # hi = b.hi but xtime
        c.e("ld", lo, "X+")                       # AddRoundKey fused: lo = round key ^ t
        c.e("eor", lo, t)
        c.e("ld", t, "X+")
        c.e("eor", hi, t)
        c.e("eor", lo, R(prev))                   # xtime(u)_k = u_(k-1) (u_7 for k = 0)
        c.e("eor", hi, R(prev + 1))
        if k in (1, 3, 4):                        # ... ^ u_7 for the bits of 0x1b
            c.e("eor", lo, R(U7))
            c.e("eor", hi, R(U7 + 1))
        prev = u


def add_round_key(c: Code) -> None:               # X = the round key's planes (16 bytes), advanced
    for k in range(8):
        for h in (0, 1):
            c.e("ld", R(TMP), "X+")
            c.e("eor", R(PLANE[k] + h), R(TMP))


def pos_index(p: int, shift: int = 0) -> int:
    """Plane bit p (0..7 the low register: row 0 then row 2; 8..15 the high one: row 1 then row 3, four
    columns each) <-> state byte r + 4c (FIPS 197 order); with shift, byte (r, c + shift * r). shift = 1:
    the first round's ShiftRows is done by where the input bytes are loaded from (it commutes with
    SubBytes; round key 0 is transposed the same way); shift = -1: the last round's by where the output
    bytes are stored (round key 10 transposed the same way, to meet the state before ShiftRows)."""
    r, col = (0, 2, 1, 3)[p // 4], p % 4
    return r + 4 * ((col + shift * r) % 4)


def transpose8(c: Code, regs: list[int]) -> None:
    """Transpose the 8x8 bit matrix in regs in place (bit j of regs[i] <-> bit i of regs[j]): three
    SWAPMOVE stages, t = ((x_i >> d) ^ x_(i+d)) & m; x_(i+d) ^= t; x_i ^= t << d (SWAP for d = 4):
    92 cycles instead of 128 for LSR/ROR bit by bit."""
    t = R(TMP)
    for d, m in ((4, 0x0F), (2, 0x33), (1, 0x55)):
        for i in range(8):
            if i & d:
                continue
            x, y = R(regs[i]), R(regs[i + d])
            c.e("mov", t, x)
            if d == 4:
                c.e("swap", t)
            else:
                for _ in range(d):
                    c.e("lsr", t)
            c.e("eor", t, y)
            c.e("andi", t, f"0x{m:02X}")
            c.e("eor", y, t)
            if d == 4:
                c.e("swap", t)
            else:
                for _ in range(d):
                    c.e("lsl", t)
            c.e("eor", x, t)


def transpose_in(c: Code, shift: int = 0) -> None:   # planes <- the 16 bytes at Z
    for h in (0, 1):
        for j in range(8):                        # position j (low) / 8 + j (high) into plane j's register
            c.e("ldd", R(PLANE[j] + h), f"Z+{pos_index(j + 8 * h, shift)}")
        transpose8(c, [PLANE[j] + h for j in range(8)])


def transpose_out(c: Code) -> None:               # the 16 bytes at Z <- planes, ShiftRows on the way
    for h in (0, 1):
        transpose8(c, [PLANE[j] + h for j in range(8)])
        for j in range(8):
            c.e("std", f"Z+{pos_index(j + 8 * h, shift=-1)}", R(PLANE[j] + h))


# ---------------------------------------------------------------------------------------------------------
# The functions

def frame_layout(nslots: int) -> dict[str, int]:
    f = {"SPILL": 1}
    f["RKP"] = 1 + 2 * nslots                     # round-key pointer across the S-box
    f["OUTP"] = f["RKP"] + 2                      # out (encrypt) / rk (key schedule)
    f["CNT"] = f["OUTP"] + 2                      # encrypt: the loop's end (X low byte); key schedule: rounds
    f["RCON"] = f["CNT"] + 1
    f["SIZE"] = f["RCON"]
    assert f["SIZE"] <= 63                        # LDD/STD reach and SBIW immediate
    return f


def prologue(c: Code, f: dict[str, int]) -> None:
    for r in SAVED:
        c.e("push", R(r))
    c.e("in", "r28", "0x3d")                      # Y = SP - frame; the frame is Y+1 .. Y+SIZE
    c.e("in", "r29", "0x3e")
    c.e("sbiw", "r28", f["SIZE"])
    c.e("in", "r0", "0x3f")
    c.e("cli")
    c.e("out", "0x3e", "r29")
    c.e("out", "0x3f", "r0")
    c.e("out", "0x3d", "r28")


def epilogue(c: Code, f: dict[str, int]) -> None:
    c.e("adiw", "r28", f["SIZE"])
    c.e("in", "r0", "0x3f")
    c.e("cli")
    c.e("out", "0x3e", "r29")
    c.e("out", "0x3f", "r0")
    c.e("out", "0x3d", "r28")
    for r in reversed(SAVED):
        c.e("pop", R(r))
    c.e("clr", "r1")
    c.e("ret")


def save_x(c: Code, f: dict[str, int]) -> None:
    c.e("std", f"Y+{f['RKP']}", "r26")
    c.e("std", f"Y+{f['RKP'] + 1}", "r27")


def load_x(c: Code, f: dict[str, int]) -> None:
    c.e("ldd", "r26", f"Y+{f['RKP']}")
    c.e("ldd", "r27", f"Y+{f['RKP'] + 1}")


def encrypt_fn(f: dict[str, int]) -> Code:
    """void encrypt(uint8_t *out = r24:r25, const uint8_t *in = r22:r23, const uint8_t *rk = r20:r21)"""
    c = Code()
    prologue(c, f)
    c.e("std", f"Y+{f['OUTP']}", "r24")
    c.e("std", f"Y+{f['OUTP'] + 1}", "r25")
    c.e("movw", "r30", "r22")
    transpose_in(c, shift=1)                      # ShiftRows(in): round 1's ShiftRows done here
    c.e("movw", "r26", "r20")
    add_round_key(c)
    c.e("mov", R(TMP), "r20")                     # the loop ends when X (advanced 16 a round) reaches
    c.e("subi", R(TMP), "0x60")                   # rk + 160: its low byte, lo8(rk) + 160 = lo8(rk) - 0x60
    c.e("std", f"Y+{f['CNT']}", R(TMP))
    # Rounds 1..9. ShiftRows commutes with SubBytes, so round r's ShiftRows is done before its S-box: by
    # the input addresses for round 1 (the loop is entered after the ShiftRows), on the planes for 2..9.
    c.e("rjmp", ".Laes_bs_first")
    c.label(".Laes_bs_round")
    shiftrows(c)
    c.label(".Laes_bs_first")
    save_x(c, f)
    c.e("rcall", ".Laes_bs_sbox")
    load_x(c, f)
    mixcolumns_ark(c)
    c.e("ldd", R(TMP), f"Y+{f['CNT']}")
    c.e("cp", "r26", R(TMP))
    c.e("breq", ".+2")                            # the round count and the pointer are public
    c.e("rjmp", ".Laes_bs_round")
    save_x(c, f)
    c.e("rcall", ".Laes_bs_sbox")
    load_x(c, f)                                  # last round: no ShiftRows here (round key 10 and the
    add_round_key(c)                              # output stores are shifted instead)
    c.e("ldd", "r30", f"Y+{f['OUTP']}")
    c.e("ldd", "r31", f"Y+{f['OUTP'] + 1}")
    transpose_out(c)                              # the output, ShiftRows of round 10 on the way
    epilogue(c, f)
    return c


def keyschedule_fn(f: dict[str, int]) -> Code:
    """void keyschedule(uint8_t *rk = r24:r25, const uint8_t *key = r22:r23): FIPS 197 expansion in
    bytes (SubWord: the four bytes of w3 transposed into four plane positions and through the circuit),
    then every round key to planes, in place."""
    c = Code()
    prologue(c, f)
    c.e("std", f"Y+{f['OUTP']}", "r24")
    c.e("std", f"Y+{f['OUTP'] + 1}", "r25")
    c.e("movw", "r26", "r24")
    c.e("movw", "r30", "r22")
    for _ in range(16):
        c.e("ld", "r0", "Z+")
        c.e("st", "X+", "r0")
    c.e("ldi", R(TMP), 1)
    c.e("std", f"Y+{f['RCON']}", R(TMP))
    c.e("ldi", R(TMP), 10)
    c.e("std", f"Y+{f['CNT']}", R(TMP))
    c.label(".Laes_bs_ks")
    save_x(c, f)                                  # X = the round key to write
    # SubWord: only w3 (the 4 bytes before X) goes through the circuit, at bits 4..7 of the low plane
    # registers (the other 12 positions compute garbage that is never read)
    for j in range(4):
        c.e("ld", R(TMP), "-X")                   # w3 bytes 3, 2, 1, 0 (X ends at the previous key + 12)
        for k in range(8):
            c.e("lsr", R(TMP))
            c.e("ror", R(PLANE[k]))
    c.e("rcall", ".Laes_bs_sbox")
    # back out from the top: bit 7 holds byte 0 (fed last), bit 4 byte 3; t = RotWord: S[w13], S[w14],
    # S[w15], S[w12] into r18..r21, each ^ 0x63 (the circuit's NOTs)
    for dst in (21, 18, 19, 20):                  # bytes 0 (-> t3), 1, 2, 3
        for k in reversed(range(8)):
            c.e("lsl", R(PLANE[k]))
            c.e("rol", R(dst))
    c.e("ldi", R(TMP), "0x63")
    for dst in (18, 19, 20, 21):
        c.e("eor", R(dst), R(TMP))
    c.e("ldd", R(TMP), f"Y+{f['RCON']}")
    c.e("eor", "r18", R(TMP))
    c.e("lsl", R(TMP))                            # Rcon = xtime(Rcon): the branch depends on the round only
    c.e("brcc", ".+2")
    c.e("ldi", R(TMP), "0x1b")
    c.e("std", f"Y+{f['RCON']}", R(TMP))
    load_x(c, f)
    c.e("movw", "r30", "r26")
    c.e("sbiw", "r30", 16)
    for _ in range(4):
        for reg in (18, 19, 20, 21):
            c.e("ld", "r0", "Z+")
            c.e("eor", R(reg), "r0")
            c.e("st", "X+", R(reg))
    c.e("ldd", R(TMP), f"Y+{f['CNT']}")
    c.e("dec", R(TMP))
    c.e("std", f"Y+{f['CNT']}", R(TMP))
    c.e("breq", ".+2")
    c.e("rjmp", ".Laes_bs_ks")
    # every round key to planes, in place; keys 1..10 complemented where 0x63 has a one
    c.e("ldd", "r30", f"Y+{f['OUTP']}")
    c.e("ldd", "r31", f"Y+{f['OUTP'] + 1}")
    for i in range(11):
        if 0 < i < 10:
            c.e("rcall", ".Laes_bs_tin")
        else:                                     # key 0 shifted as the input, key 10 back (pos_index)
            transpose_in(c, shift=1 if i == 0 else -1)
        if i:
            for k in range(8):
                if (SBOX_NOT >> k) & 1:
                    c.e("com", R(PLANE[k]))
                    c.e("com", R(PLANE[k] + 1))
        for k in range(8):
            c.e("st", "Z+", R(PLANE[k]))
            c.e("st", "Z+", R(PLANE[k] + 1))
    epilogue(c, f)
    return c


def subroutines(sb: Code) -> list[tuple[str, Code, str]]:
    tin = Code()
    transpose_in(tin)
    tin.e("ret")
    s = Code()
    s.lines = list(sb.lines)
    s.ins = list(sb.ins)
    s.e("ret")
    return [(".Laes_bs_tin", tin, "planes (r2..r17) <- the 16 bytes at Z (Z kept); uses r24"),
            (".Laes_bs_sbox", s, "SubBytes on the planes, in place; uses r0, r1, r2..r27, r30, r31 and "
                                 "the frame's spill slots (Y+1 ..)")]


# ---------------------------------------------------------------------------------------------------------
# A small AVR model of the instructions above: the generator runs its own code before writing it.

class AVR:
    def __init__(self, funcs: dict[str, list[tuple]]) -> None:
        self.r = [0] * 32
        self.mem = bytearray(0x1100)
        self.sp = 0x10FF
        self.C = self.T = self.Zf = 0
        self.prog: list[tuple] = []
        self.at: dict[str, int] = {}
        for name, ins in funcs.items():
            self.at[name] = len(self.prog)
            for i in ins:
                if i[0] == "label":
                    self.at[i[1]] = len(self.prog)
                else:
                    self.prog.append(i)
        self.cycles = 0

    def reg(self, s: str) -> int:
        return int(s[1:])

    def ptr(self, n: str) -> int:
        base = {"X": 26, "Y": 28, "Z": 30}[n]
        return self.r[base] | self.r[base + 1] << 8

    def setptr(self, n: str, v: int) -> None:
        base = {"X": 26, "Y": 28, "Z": 30}[n]
        self.r[base], self.r[base + 1] = v & 0xFF, (v >> 8) & 0xFF

    def addr(self, s: str) -> int:                # "Y+5", "Z+12"
        n, off = s.split("+")
        return self.ptr(n) + int(off)

    def imm(self, s) -> int:
        return int(s, 0) if isinstance(s, str) else s

    def call(self, name: str) -> None:
        pc = self.at[name]
        depth = 0
        r = self.r
        while True:
            op, *a = self.prog[pc]
            self.cycles += CYC.get(op, 1)
            pc += 1
            if op in ("eor", "and", "mov"):
                x, y = self.reg(a[0]), self.reg(a[1])
                r[x] = r[x] ^ r[y] if op == "eor" else (r[x] & r[y] if op == "and" else r[y])
            elif op == "movw":
                x, y = self.reg(a[0]), self.reg(a[1])
                r[x], r[x + 1] = r[y], r[y + 1]
            elif op == "ldd":
                r[self.reg(a[0])] = self.mem[self.addr(a[1])]
            elif op == "std":
                self.mem[self.addr(a[0])] = r[self.reg(a[1])]
            elif op == "ld" and a[1][0] == "-":
                p = a[1][1]
                self.setptr(p, self.ptr(p) - 1)
                r[self.reg(a[0])] = self.mem[self.ptr(p)]
            elif op == "ld":
                p = a[1][0]
                r[self.reg(a[0])] = self.mem[self.ptr(p)]
                self.setptr(p, self.ptr(p) + 1)
            elif op == "st":
                p = a[0][0]
                self.mem[self.ptr(p)] = r[self.reg(a[1])]
                self.setptr(p, self.ptr(p) + 1)
            elif op == "lsr":
                x = self.reg(a[0])
                self.C = r[x] & 1
                r[x] >>= 1
            elif op == "lsl":
                x = self.reg(a[0])
                self.C = r[x] >> 7
                r[x] = (r[x] << 1) & 0xFF
            elif op == "ror":
                x = self.reg(a[0])
                c = r[x] & 1
                r[x] = (r[x] >> 1) | (self.C << 7)
                self.C = c
            elif op == "rol":
                x = self.reg(a[0])
                c = r[x] >> 7
                r[x] = ((r[x] << 1) & 0xFF) | self.C
                self.C = c
            elif op == "swap":
                x = self.reg(a[0])
                r[x] = ((r[x] << 4) | (r[x] >> 4)) & 0xFF
            elif op == "bst":
                self.T = (r[self.reg(a[0])] >> a[1]) & 1
            elif op == "bld":
                x = self.reg(a[0])
                r[x] = (r[x] & ~(1 << a[1]) & 0xFF) | (self.T << a[1])
            elif op == "andi":
                x = self.reg(a[0])
                r[x] &= self.imm(a[1])
            elif op == "ldi":
                r[self.reg(a[0])] = self.imm(a[1])
            elif op == "com":
                x = self.reg(a[0])
                r[x] ^= 0xFF
            elif op == "clr":
                r[self.reg(a[0])] = 0
            elif op == "cp":
                self.Zf = int(r[self.reg(a[0])] == r[self.reg(a[1])])
            elif op == "subi":
                x = self.reg(a[0])
                r[x] = (r[x] - self.imm(a[1])) & 0xFF
            elif op == "dec":
                x = self.reg(a[0])
                r[x] = (r[x] - 1) & 0xFF
                self.Zf = int(r[x] == 0)
            elif op in ("sbiw", "adiw"):
                x = self.reg(a[0])
                v = r[x] | r[x + 1] << 8
                v = (v - a[1] if op == "sbiw" else v + a[1]) & 0xFFFF
                r[x], r[x + 1] = v & 0xFF, v >> 8
            elif op == "push":
                self.mem[self.sp] = r[self.reg(a[0])]
                self.sp -= 1
            elif op == "pop":
                self.sp += 1
                r[self.reg(a[0])] = self.mem[self.sp]
            elif op == "in":
                port = int(a[1], 0)
                r[self.reg(a[0])] = {0x3d: self.sp & 0xFF, 0x3e: self.sp >> 8, 0x3f: 0}[port]
            elif op == "out":
                port, v = int(a[0], 0), r[self.reg(a[1])]
                if port == 0x3d:
                    self.sp = (self.sp & 0xFF00) | v
                elif port == 0x3e:
                    self.sp = (self.sp & 0xFF) | v << 8
            elif op == "cli":
                pass
            elif op in ("breq", "brcc"):
                taken = self.Zf if op == "breq" else (1 - self.C)
                assert a[0] == ".+2"
                if taken:
                    pc += 1
                    self.cycles += 1
            elif op == "rjmp":
                pc = self.at[a[0]]
                self.cycles += 1
            elif op == "rcall":
                self.mem[self.sp] = pc & 0xFF         # return index (a model, not the hardware's)
                self.mem[self.sp - 1] = pc >> 8
                self.sp -= 2
                pc = self.at[a[0]]
                depth += 1
            elif op == "ret":
                if depth == 0:
                    return
                self.sp += 2
                pc = self.mem[self.sp] | self.mem[self.sp - 1] << 8
                depth -= 1
            else:
                raise ValueError(op)


def aes_model(key: bytes, block: bytes) -> bytes:
    def xt(x: int) -> int:
        return ((x << 1) ^ (0x1B if x & 0x80 else 0)) & 0xFF
    w = list(key)
    rcon = 1
    for i in range(4, 44):
        t = w[4 * i - 4:4 * i]
        if i % 4 == 0:
            t = [SBOX[t[1]] ^ rcon, SBOX[t[2]], SBOX[t[3]], SBOX[t[0]]]
            rcon = xt(rcon)
        w += [w[4 * i - 16 + j] ^ t[j] for j in range(4)]
    s = [b ^ k for b, k in zip(block, w[:16])]
    for rnd in range(1, 11):
        s = [SBOX[v] for v in s]
        s = [s[(i % 4) + 4 * ((i // 4 + i % 4) % 4)] for i in range(16)]
        if rnd < 10:
            n = []
            for col in range(4):
                a = s[4 * col:4 * col + 4]
                n += [gmul(a[i], 2) ^ gmul(a[(i + 1) % 4], 3) ^ a[(i + 2) % 4] ^ a[(i + 3) % 4] for i in range(4)]
            s = n
        s = [b ^ k for b, k in zip(s, w[16 * rnd:16 * rnd + 16])]
    return bytes(s)


def self_test(funcs: dict[str, list[tuple]], trials: int = 6) -> tuple[int, int]:
    rng = random.Random(19)
    cases = [(bytes(range(16)), bytes.fromhex("00112233445566778899aabbccddeeff"))]
    cases += [(rng.randbytes(16), rng.randbytes(16)) for _ in range(trials)]
    ks_cyc = enc_cyc = 0
    for n, (key, pt) in enumerate(cases):
        m = AVR(funcs)
        rk, kp, ip, op = 0x200 + 0x25 * n, 0x400, 0x420, 0x440   # round keys across a 256-byte boundary too
        m.mem[kp:kp + 16] = key
        m.mem[ip:ip + 16] = pt
        m.r[24], m.r[25], m.r[22], m.r[23] = rk & 0xFF, rk >> 8, kp & 0xFF, kp >> 8
        m.call("keyschedule")
        ks_cyc = m.cycles
        assert m.sp == 0x10FF
        m.cycles = 0
        m.r[24], m.r[25], m.r[22], m.r[23] = op & 0xFF, op >> 8, ip & 0xFF, ip >> 8
        m.r[20], m.r[21] = rk & 0xFF, rk >> 8
        m.call("encrypt")
        enc_cyc = m.cycles
        assert m.sp == 0x10FF and m.r[1] == 0
        got = bytes(m.mem[op:op + 16])
        assert got == aes_model(key, pt), (key.hex(), pt.hex(), got.hex())
    assert aes_model(bytes(range(16)), bytes.fromhex("00112233445566778899aabbccddeeff")).hex() == \
        "69c4e0d86a7b0430d8cdb78070b4c55a"        # FIPS 197, C.1
    return ks_cyc, enc_cyc


# ---------------------------------------------------------------------------------------------------------
# Output

HEADER = """// SPDX-License-Identifier: MIT
/* GENERATED by gen_aes_bs_avr.py - do not edit. AES-128 (FIPS 197) for the 8-bit AVR (ATmega128),
 * avr-bitsliced: constant time on any AVR, no table look-up at all.
 *
 * C prototypes:
 *   void mcu_aes128_avr_bitsliced_keyschedule(uint8_t *rk, const uint8_t *key);
 *       rk: 176 bytes, the 11 round keys as planes (16 bytes each: plane 0 low, plane 0 high, ...,
 *       plane 7 high; rows 0 | 2 in the low byte, rows 1 | 3 in the high one, bit = column within the
 *       nibble), keys 1..10 XOR 0x63, key 10 with its bytes moved by ShiftRows^-1
 *   void mcu_aes128_avr_bitsliced_encrypt(uint8_t *out, const uint8_t *in, const uint8_t *rk);
 *
 * Register map
 *   r2:r3 .. r16:r17   the eight planes (plane k = bit k of the 16 state bytes), 16 bits each: low register
 *                      rows 0 (bits 0..3) and 2 (4..7), high register rows 1 and 3; bit = column
 *   r18:r19            MixColumns: u7 = plane 7 of a ^ rot1(a);  r20:r21, r22:r23: the other u planes
 *   r24                the temporary (ANDI needs r16..r31)
 *   X r26:r27          round keys (LD X+), saved in the frame across the S-box
 *   Y r28:r29          the frame (SP after the prologue): S-box spill slots at Y+1.., then rk/out pointers,
 *                      the loop end or round counter and Rcon ({size} bytes)
 *   Z r30:r31          in / out / key pointer for the transpositions
 *   The S-box uses every pair but Y (r0:r1 too; r1 is cleared before returning).
 * Techniques
 *   - one block as eight 16-bit planes (transposition: two 8x8 SWAPMOVE transposes each way, 92 cycles each);
 *   - SubBytes: the Boyar-Peralta circuit (113 gates), two instructions a gate plus a MOVW when no operand
 *     dies; gate order searched ({order_src}) and values allocated over 15 pairs
 *     with Belady spills: {sbox_cyc} cycles for 16 S-boxes, {slots} spill slots;
 *   - ShiftRows: a delta swap (row 2) and nibble rotations (rows 1, 3: LSR/LSL, BST/BLD, masked merge),
 *     {sr_cyc} cycles;
 *   - MixColumns: rot1(a) = (hi, SWAP lo) and rot2(a) = (SWAP lo, SWAP hi) on a plane (lo, hi), u = a ^
 *     rot1(a), b = rot1(a) ^ rot2(u) ^ xtime(u), xtime a renaming plus three XORs; AddRoundKey fused
 *     (LD lo, X+ / EOR lo, t replaces a MOV): {mc_cyc} cycles for both;
 *   - the circuit's NOTs are in round keys 1..10 (an all-0x63 state goes through ShiftRows and
 *     MixColumns unchanged);
 *   - ShiftRows commutes with SubBytes: round 1's is done by the input loads' addresses (round key 0
 *     stored shifted too), round 10's by the output stores' (round key 10 stored with ShiftRows^-1):
 *     eight ShiftRows on the planes, before the S-box of rounds 2..9;
 *   - rounds 1..9 a loop, the S-box and the transpositions subroutines (RCALL).
 * Cycles (generator's count, without the CALL): encrypt {enc}, key schedule {ks}.
 * Timing: no branch except the public round counter (and Rcon's, on the public round), no address that
 * depends on a secret: the same time for every key and block on any AVR.
 */
#include "mcucrypt/ns.h"

    .text
"""


def generate() -> tuple[str, dict]:
    check_circuit()
    probe = frame_layout(0)                       # the spill base does not depend on the frame size
    if "--search" in sys.argv:                    # --search ITERS SEED: anneal from the current order
        iters, seed = (int(v) for v in sys.argv[sys.argv.index("--search") + 1:][:2])
        start = best_sbox(probe["SPILL"])[2]
        ORDER_FILE.write_text(json.dumps(search_order(start, iters, seed, probe["SPILL"])) + "\n")
    sb, nslots, order = best_sbox(probe["SPILL"])
    f = frame_layout(nslots)
    subs = subroutines(sb)
    enc = encrypt_fn(f)
    ks = keyschedule_fn(f)
    funcs = {"encrypt": enc.ins, "keyschedule": ks.ins}
    for name, c, _ in subs:
        funcs[name] = c.ins
    ks_cyc, enc_cyc = self_test(funcs)
    sr, mc = Code(), Code()
    shiftrows(sr)
    mixcolumns_ark(mc)
    stats = {"enc": enc_cyc, "ks": ks_cyc, "sbox_cyc": sb.cycles(), "slots": nslots,
             "sr_cyc": sr.cycles(), "mc_cyc": mc.cycles(), "size": f["SIZE"]}
    out = HEADER.format(**stats, order_src="annealing, aes128_bs_avr_order.json"
                        if ORDER_FILE.exists() else "seeded greedy")
    layout = [("keyschedule", ks, None)] + subs + [("encrypt", enc, None)]   # the subroutines in the
    check_reach(layout)                                                      # middle: RCALL reaches both
    for name, c, doc in layout:
        if doc:
            out += f"\n// {doc}\n{name}:\n" + "\n".join(c.lines) + "\n"
            continue
        out += f"""
    .global MCU_FN(aes128, {name})
    .type MCU_FN(aes128, {name}), @function
MCU_FN(aes128, {name}):
""" + "\n".join(c.lines) + f"\n    .size MCU_FN(aes128, {name}), . - MCU_FN(aes128, {name})\n"
    return out, stats


def check_reach(layout: list) -> None:
    """RCALL and RJMP reach +-2K words; every instruction emitted here is one word."""
    at: dict[str, int] = {}
    pc = 0
    refs = []
    for name, c, _ in layout:
        at[name] = pc
        for i in c.ins:
            if i[0] == "label":
                at[i[1]] = pc
                continue
            if i[0] in ("rcall", "rjmp"):
                refs.append((pc, i[1]))
            pc += 1
    for pc, target in refs:
        assert -2048 <= at[target] - pc - 1 <= 2047, (pc, target)


def main() -> int:
    out = HERE / "aes128_bs_avr.S"
    text, stats = generate()
    if "--stats" in sys.argv:
        print(stats)
    return write_or_check({out: text}, "--check" in sys.argv, __file__)


if __name__ == "__main__":
    sys.exit(main())
