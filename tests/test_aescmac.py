# SPDX-License-Identifier: MIT
"""AES-128-CMAC (SP 800-38B, RFC 4493; issue 29): what the generic catalog test does not cover.

test_catalog.py runs the official vectors (RFC 4493, the CAVP CMACGenAES128 subset) on every
implementation and target, the mac driver's differential test and the constant-time checker. Here:
- the model against the official vectors, RFC 4493's subkeys and the `cryptography` package's CMAC (a
  second, independent oracle) on every length of the first four blocks and a sample to 300;
- every implementation and target: messages of every length 0..300 on the host, every block edge in the
  first three blocks and 300 bytes on the boards (all of 0..300 with MCUCRYPT_FULL=1), one-shot,
  incremental with cuts on both sides of block boundaries and byte by byte, the input misaligned;
- verify: truncated tags 4..16 accepted, forged tags (one bit anywhere) and lengths 0..3 / 17 refused, one
  instruction path for a right and a wrong tag; the context layout the constant-time cases rely on;
- the driver's CAVP fields (Mlen, Tlen, Result F), `mcucrypt run` and its refusals.
"""
from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys

import pytest
from cryptography.hazmat.primitives.ciphers import algorithms
from cryptography.hazmat.primitives.cmac import CMAC

from mcucrypt.boards.base import Buf
from mcucrypt.catalog import load_catalog
from mcucrypt.firmware import Firmware, shared_firmware as firmware
from mcucrypt.kat import Vector, read_vectors
from mcucrypt.kinds import mac as mac_kind
from mcucrypt.kinds.base import Mismatch, UsageError, driver_for
from mcucrypt.models import aescmac as model
from mcucrypt.targets import ROOT

FULL = os.environ.get("MCUCRYPT_FULL") == "1"
CATALOG = load_catalog()
ID = "aescmac128"
PRIM = CATALOG.by_id(ID)
TOP = 300
DRV = mac_kind.DRIVER


def jobs(targets: tuple[str, ...] = ("host", "rv32", "armv7m", "avr")) -> list[tuple[str, str]]:
    return [(impl.name, t) for impl in CATALOG.implementations(ID) for t in impl.targets if t in targets]


def lengths(target: str) -> list[int]:
    if target == "host" or FULL:
        return list(range(TOP + 1))
    return sorted({0, 1, TOP} | {16 * k + d for k in range(4) for d in (-1, 0, 1) if 16 * k + d >= 0})


def oracle(key: bytes, msg: bytes) -> bytes:
    c = CMAC(algorithms.AES(key))
    c.update(msg)
    return c.finalize()


def incremental(fw: Firmware, key: bytes, chunks: list[bytes]) -> tuple[bytes, bytes]:
    ctx = fw.call("mac_init", {"ctx": Buf(size=fw.params["ctx_bytes"], out=True), "key": Buf(key, misalign=3)}).outputs[0]
    for i, c in enumerate(chunks):
        ctx = fw.call("mac_update", {"ctx": Buf(ctx, out=True), "in": Buf(c, misalign=i % 4), "inlen": len(c)}).outputs[0]
    res = fw.call("mac_final", {"ctx": Buf(ctx, out=True), "out": Buf(size=16, out=True)})
    ctx, tag = res.outputs
    return tag, ctx


# ------------------------------------------------------------------------------------------- model
def test_model_matches_official_vectors_and_rfc4493_subkeys() -> None:
    n = 0
    for rel in PRIM.instances[ID]["vectors"]:
        for v in read_vectors(PRIM.directory / rel):
            key, md = v.hex("Key"), v.hex("MD") if v.get("MD") is not None else v.hex("Mac")
            msg = v.hex("Msg")[:int(v.get("Mlen", 1 << 30))]
            assert model.mac(ID, key, msg)[:len(md)] == md, v.where
            assert oracle(key, msg)[:len(md)] == md, v.where
            n += 1
    assert n >= 24
    k1, k2 = model.subkeys(bytes.fromhex("2b7e151628aed2a6abf7158809cf4f3c"))
    assert (k1.hex(), k2.hex()) == ("fbeed618357133667c85e08f7236a8de", "f7ddac306ae266ccf90bc11ee46d513b")


def test_model_matches_cryptography_cmac() -> None:
    """Every length of the first four blocks, then every 7th to 300 (the model's AES is pure Python)."""
    rng = random.Random("cmac/model")
    for n in [*range(65), *range(65, TOP + 1, 7), TOP]:
        key, msg = rng.randbytes(16), rng.randbytes(n)
        assert model.mac(ID, key, msg) == oracle(key, msg), n


# ------------------------------------------------------------------------------ implementations
@pytest.mark.parametrize("impl,target", jobs())
def test_every_length_oneshot_and_incremental(impl: str, target: str) -> None:
    fw = firmware(ID, impl, target)
    rng = random.Random(f"cmac/{impl}/{target}")
    for n in lengths(target):
        key, msg = rng.randbytes(16), rng.randbytes(n)
        want = oracle(key, msg)
        got = fw.call("mac", {"out": Buf(size=16, out=True), "key": Buf(key, misalign=1),
                              "in": Buf(msg, misalign=n % 4), "inlen": n}).outputs[0]
        assert got == want, f"{impl} {target}: mac of {n} bytes"
        cut = rng.choice([c for c in (n // 16 * 16 - 1, n // 16 * 16, n // 16 * 16 + 1, rng.randint(0, n)) if 0 <= c <= n])
        tag, ctx = incremental(fw, key, [msg[:cut], b"", msg[cut:]])
        assert tag == want, f"{impl} {target}: incremental {cut} + {n - cut}"
        assert not any(ctx), f"{impl} {target}: mac_final left the context unwiped"


@pytest.mark.parametrize("impl,target", jobs())
def test_byte_by_byte_update(impl: str, target: str) -> None:
    fw = firmware(ID, impl, target)
    rng = random.Random("cmac/bytes")
    for n in (0, 15, 16, 17, 33):
        key, msg = rng.randbytes(16), rng.randbytes(n)
        tag, _ = incremental(fw, key, [msg[i:i + 1] for i in range(n)])
        assert tag == oracle(key, msg), f"{impl} {target}: {n} bytes one at a time"


@pytest.mark.parametrize("impl,target", jobs())
def test_verify_truncated_and_forged_tags(impl: str, target: str) -> None:
    """Every tag length 4..16 accepted; a flipped bit at every byte position refused; lengths 0..3 and 17
    refused; the same instructions (and cycles) for the right tag and tags wrong in the first or last byte."""
    fw = firmware(ID, impl, target)
    rng = random.Random(f"cmac/verify/{impl}/{target}")
    key, msg = rng.randbytes(16), rng.randbytes(37)
    tag = oracle(key, msg)
    for t in range(4, 17):
        assert DRV.verify(fw, tag[:t], key, msg)[0], f"{impl} {target}: refused the right {t}-byte tag"
    for i in range(16):
        forged = tag[:i] + bytes([tag[i] ^ (1 << rng.randrange(8))]) + tag[i + 1:]
        assert not DRV.verify(fw, forged, key, msg)[0], f"{impl} {target}: accepted a tag wrong in byte {i}"
        assert not DRV.verify(fw, forged[:max(4, i + 1)], key, msg)[0], f"{impl} {target}: truncated forgery"
    other = bytes([msg[0] ^ 1]) + msg[1:]
    assert not DRV.verify(fw, tag, key, other)[0], f"{impl} {target}: accepted the tag of another message"
    for t in (0, 1, 3):
        assert not DRV.verify(fw, tag[:t], key, msg)[0], f"{impl} {target}: accepted a {t}-byte tag"
    assert not DRV.verify(fw, tag + b"\x00", key, msg)[0], f"{impl} {target}: accepted a 17-byte tag"
    costs = set()
    for t in (tag, bytes([tag[0] ^ 1]) + tag[1:], tag[:-1] + bytes([tag[-1] ^ 0x80])):
        ok, res = DRV.verify(fw, t, key, msg)
        assert ok == (t == tag)
        costs.add((res.instructions, res.cycles))
    assert len(costs) == 1, f"{impl} {target}: {costs}"


def test_context_layout_matches_the_public_bytes_of_the_ct_cases() -> None:
    """ctx_public says the pending count sits at 240 (5 after 21 bytes, 16 after 32: a full block is held
    back for mac_final) followed by three zero bytes; K1 and K2 at 176 and 192."""
    fw = firmware(ID, "ref", "host")
    key = bytes(range(16))
    ctx = fw.call("mac_init", {"ctx": Buf(size=244, out=True), "key": Buf(key)}).outputs[0]
    k1, k2 = model.subkeys(key)
    assert ctx[176:192] == k1 and ctx[192:208] == k2 and ctx[240:244] == bytes(4)
    for n, count in ((21, 5), (32, 16), (0, 0)):
        c = fw.call("mac_update", {"ctx": Buf(ctx, out=True), "in": Buf(bytes(n)), "inlen": n}).outputs[0]
        assert c[240:244] == bytes([count, 0, 0, 0]), n
    assert PRIM.instances[ID]["ctx_public"] == [[240, "05000000"]]


# ------------------------------------------------------------------------------------------- driver
def test_driver_cavp_fields_and_a_wrong_tag() -> None:
    """Mlen cuts the CAVP 00 placeholder; a Result F record must be refused; a wrong tag is reported."""
    fw = firmware(ID, "ref", "host")
    key = bytes(16)
    good = model.mac(ID, key, b"")
    DRV.check_vector(fw, Vector(ROOT / "x", 1, {"Key": key.hex(), "Mlen": "0", "Tlen": "4", "Msg": "00",
                                                "Mac": good[:4].hex()}))
    forged = (bytes([good[0] ^ 1]) + good[1:4]).hex()
    DRV.check_vector(fw, Vector(ROOT / "x", 1, {"Key": key.hex(), "Mlen": "0", "Tlen": "4", "Msg": "00",
                                                "Mac": forged, "Result": "F (3 - Mac)"}))
    with pytest.raises(Mismatch):
        DRV.check_vector(fw, Vector(ROOT / "x", 1, {"Key": key.hex(), "Mlen": "0", "Tlen": "4", "Msg": "00",
                                                    "Mac": forged}))
    with pytest.raises(Mismatch):
        DRV.check_vector(fw, Vector(ROOT / "x", 1, {"Key": key.hex(), "Mlen": "0", "Tlen": "4", "Msg": "00",
                                                    "Mac": good[:4].hex(), "Result": "F"}))


def _opts(**kw) -> argparse.Namespace:
    return argparse.Namespace(**{**{"key": None, "input": None, "tag": None}, **kw})


def test_run_contract() -> None:
    drv = driver_for("mac")
    fw = firmware(ID, "ref", "host")
    key, msg, want = "2b7e151628aed2a6abf7158809cf4f3c", "6bc1bee22e409f96e93d7e117393172a", "070a16b46b4d4144f79bdd9dd04a287c"
    assert drv.run(fw, _opts(key=key, input=msg))[0].hex() == want          # RFC 4493 example 2
    assert drv.run(fw, _opts(key=key, input=msg, tag=want[:8]))[0].hex() == want[:8]
    with pytest.raises(UsageError, match="authentication failed"):
        drv.run(fw, _opts(key=key, input=msg, tag="00" * 16))
    with pytest.raises(UsageError, match="--key"):
        drv.run(fw, _opts(key="00" * 15, input=msg))
    with pytest.raises(UsageError, match="--tag"):
        drv.run(fw, _opts(key=key, input=msg, tag="00" * 3))


@pytest.mark.parametrize("args", [["--key", "00" * 16, "--input", "00", "--tag", "00" * 16], ["--key", "00"]])
def test_cli_bad_input_exits_2(args: list[str]) -> None:
    proc = subprocess.run([sys.executable, "-m", "mcucrypt.cli", "run", ID, *args, "--target", "host", "--impl", "ref"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
