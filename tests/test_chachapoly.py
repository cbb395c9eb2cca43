# SPDX-License-Identifier: MIT
"""Poly1305 and ChaCha20-Poly1305 (issue 29): what the generic catalog test does not cover.

test_catalog.py already runs the RFC 8439 vectors, the differential test (random lengths 0..300, one
flipped bit of every ciphertext, incremental Poly1305 in random pieces, truncated and over-long tags)
and the constant-time checker (taint mode) on every implementation and board. Here:
- the Python model against the vectors and against a second oracle, the `cryptography` package
  (OpenSSL), on random lengths 0..300;
- every length at the edges of Poly1305's 16-byte blocks and ChaCha20's 64-byte blocks (of AD and
  message) on every implementation (MCUCRYPT_FULL=1: every length 0..300 on every board);
- forgeries of every kind rejected with nothing released (output untouched, *mlen 0), also for
  ciphertexts made by the second oracle;
- incremental Poly1305 byte by byte and in pieces straddling blocks, the context wiped;
- the incremental ChaCha20-Poly1305 API: AD and message byte by byte (host), in pieces straddling the
  16- and 64-byte blocks and with empty updates, against the model and the second oracle; forged tags
  and a wrong AD refused by aead_decrypt_final, every context wiped; AD after the message refused;
- `mcucrypt run` for both ids, with a bad key length and a failing tag refused (exit 2, one line).
"""
from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest
from cryptography.hazmat.primitives import poly1305 as ossl_poly1305
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from mcucrypt.boards.base import Buf
from mcucrypt.catalog import load_catalog
from mcucrypt.cli import main
from mcucrypt.firmware import Firmware
from mcucrypt.kinds import aead, mac
from mcucrypt.kinds.base import driver_for
from mcucrypt.models import chachapoly as model
from mcucrypt.targets import ROOT

FULL = os.environ.get("MCUCRYPT_FULL") == "1"
CATALOG = load_catalog()
PRIM = CATALOG.by_id("chacha20poly1305")
IMPLS = [("ref", "host"), ("ref", "rv32"), ("ref", "armv7m"), ("ref", "avr"),
         ("rv32-fast", "rv32"), ("cm3-fast", "armv7m"), ("avr-fast", "avr")]
_FW: dict[tuple[str, str, str], Firmware] = {}


def firmware(prim_id: str, impl: str, target: str) -> Firmware:
    key = (prim_id, impl, target)
    if key not in _FW:
        _FW[key] = Firmware(CATALOG.implementation(prim_id, impl), prim_id, target)
    return _FW[key]


def test_catalog_lists_every_implementation() -> None:
    """The test matrix here is the catalog's: a new implementation is added to IMPLS too."""
    for prim_id in ("poly1305", "chacha20poly1305"):
        listed = {(i.name, t) for i in CATALOG.implementations(prim_id) for t in i.targets}
        assert listed == set(IMPLS), prim_id


# ------------------------------------------------------------------------------------------- model
def test_model_matches_official_vectors() -> None:
    suite = driver_for("suite")
    macs = suite.vectors(PRIM, "poly1305")
    assert len(macs) == 12
    for v in macs:
        assert model.poly1305(v.hex("Key"), v.hex("Msg")) == v.hex("MD"), v.where
    aeads = suite.vectors(PRIM, "chacha20poly1305")
    assert len(aeads) == 70
    for v in aeads:
        key, nonce, ad, pt, ct = (v.hex(f) for f in ("Key", "Nonce", "AD", "PT", "CT"))
        assert model.aead_encrypt(key, nonce, ad, pt) == ct, v.where
        assert model.aead_decrypt(key, nonce, ad, ct) == pt, v.where


def test_model_matches_cryptography() -> None:
    """The second oracle: OpenSSL's Poly1305 and ChaCha20-Poly1305 through `cryptography`."""
    rng = random.Random(29)
    for n in [*range(0, 70), *(rng.randint(0, 300) for _ in range(60)), 300]:
        key, msg = rng.randbytes(32), rng.randbytes(n)
        assert model.poly1305(key, msg) == ossl_poly1305.Poly1305.generate_tag(key, msg), n
        nonce, ad = rng.randbytes(12), rng.randbytes(rng.randint(0, 300))
        want = ChaCha20Poly1305(key).encrypt(nonce, msg, ad)
        assert model.aead_encrypt(key, nonce, ad, msg) == want, n
        assert model.aead_decrypt(key, nonce, ad, want) == msg
        assert model.aead_decrypt(key, nonce, ad, aead.AeadDriver.flip_bit(want, rng.randrange(8 * len(want)))) is None


# ------------------------------------------------------------------------------------ the boards
EDGES = [0, 1, 15, 16, 17, 31, 32, 63, 64, 65, 127, 128, 129, 300]


def _lengths(rng: random.Random) -> list[tuple[int, int]]:
    """(AD, message) lengths: FULL every message length 0..300 (AD drawn); else the block edges."""
    if FULL:
        return [(rng.randint(0, 300), n) for n in range(301)]
    return [(a, n) for a, n in zip(EDGES, reversed(EDGES))] + [(0, 0), (16, 16), (17, 63)]


@pytest.mark.parametrize("impl,target", IMPLS)
def test_block_edges_against_model(impl: str, target: str) -> None:
    """AD and message lengths at every block edge (Poly1305's 16, ChaCha20's 64), encryption and
    decryption, and Poly1305 one-shot and verify, against the model."""
    fw, mw = firmware("chacha20poly1305", impl, target), firmware("poly1305", impl, target)
    rng = random.Random(f"edges/{impl}/{target}")
    for adlen, n in _lengths(rng):
        key, nonce, ad, pt = rng.randbytes(32), rng.randbytes(12), rng.randbytes(adlen), rng.randbytes(n)
        want = model.aead_encrypt(key, nonce, ad, pt)
        r = aead.DRIVER.encrypt(fw, key, nonce, ad, pt)
        assert r.ok and r.output == want and r.length == len(want), (adlen, n)
        aead.DRIVER.check_decrypt(fw, key, nonce, ad, want, pt, f"lengths {adlen}, {n}")
        tag, _ = mac.DRIVER.mac(mw, key, pt)
        assert tag == model.poly1305(key, pt), n
        assert mac.DRIVER.verify(mw, tag, key, pt)[0]


@pytest.mark.parametrize("impl,target", IMPLS)
def test_forgeries_release_nothing(impl: str, target: str) -> None:
    """A bit flipped in the ciphertext or anywhere in the tag, other AD, another nonce, a truncated
    ciphertext, one shorter than a tag: rejected, the output buffer zeroed, *mlen 0. The genuine
    ciphertext (here made by the second oracle) decrypts."""
    fw = firmware("chacha20poly1305", impl, target)
    rng = random.Random(f"forge/{impl}")
    key, nonce, ad, pt = rng.randbytes(32), rng.randbytes(12), rng.randbytes(21), rng.randbytes(37)
    ct = ChaCha20Poly1305(key).encrypt(nonce, pt, ad)
    forged = [(nonce, ad, aead.AeadDriver.flip_bit(ct, bit)) for bit in (0, 8 * 36 + 7, 8 * 37, 8 * 45 + 3,
                                                                          8 * len(ct) - 1)]
    forged += [(nonce, ad[:-1], ct), (nonce, ad + b"\x00", ct), (bytes(12), ad, ct), (nonce, ad, ct[:-1]),
               (nonce, ad, ct[1:]), (nonce, ad, ct[:15]), (nonce, ad, b""),
               (nonce, b"", ChaCha20Poly1305(key).encrypt(nonce, pt, None)[:-1] + b"\x00")]
    for n, a, c in forged:
        r = aead.DRIVER.decrypt(fw, key, n, a, c)
        assert aead.DRIVER.released_nothing(r), (n.hex(), a.hex(), c.hex(), r)
        assert not any(r.output), "a rejected decryption left something in the output (the contract: zeros)"
    good = aead.DRIVER.decrypt(fw, key, nonce, ad, ct)
    assert good.ok and good.output == pt and good.length == len(pt)


@pytest.mark.parametrize("impl,target", IMPLS)
def test_poly1305_incremental(impl: str, target: str) -> None:
    """Byte by byte, pieces straddling the 16-byte blocks, empty updates; mac_final wipes the context;
    verify refuses tags of other lengths and a tag wrong in its first or last bit."""
    fw = firmware("poly1305", impl, target)
    rng = random.Random(f"incr/{impl}")
    key, msg = rng.randbytes(32), rng.randbytes(53)
    want = model.poly1305(key, msg)
    for chunks in ([msg[i:i + 1] for i in range(len(msg))] if target == "host" else [msg[:1], msg[1:2], msg[2:]],
                   [b"", msg[:15], b"", msg[15:33], msg[33:48], msg[48:], b""],
                   [msg[:16], msg[16:32], msg[32:]], [b""]):
        data = b"".join(chunks)
        tag, ctx = mac.DRIVER.incremental(fw, key, chunks)
        assert tag == model.poly1305(key, data), [len(c) for c in chunks]
        assert not any(ctx)
    ok, _ = mac.DRIVER.verify(fw, want, key, msg)
    assert ok
    for bad in (want[:15], want + b"\x00", aead.AeadDriver.flip_bit(want, 0), aead.AeadDriver.flip_bit(want, 127)):
        assert not mac.DRIVER.verify(fw, bad, key, msg)[0]


@pytest.mark.parametrize("impl,target", IMPLS)
def test_aead_incremental(impl: str, target: str) -> None:
    """The streaming API equals the one-shot result (the second oracle's) on chunkings of AD and message
    that cross every block edge: byte by byte (the host; a 1-byte start elsewhere), 63/1/64/... around
    ChaCha20's block, 15/17 around Poly1305's, empty updates. aead_decrypt_final accepts the right tag,
    refuses a tag with one bit flipped (first, last) and the right tag under other AD; every final call
    leaves the context zeroed. AD after a message byte is refused with the context unchanged."""
    fw = firmware("chacha20poly1305", impl, target)
    d = aead.DRIVER
    rng = random.Random(f"aead-incr/{impl}")
    key, nonce, ad, pt = rng.randbytes(32), rng.randbytes(12), rng.randbytes(37), rng.randbytes(150)
    want = ChaCha20Poly1305(key).encrypt(nonce, pt, ad)
    assert want == model.aead_encrypt(key, nonce, ad, pt)
    body, tag = want[:-16], want[-16:]

    def split(data: bytes, sizes: list[int]) -> list[bytes]:
        out, i = [], 0
        for n in sizes:
            out.append(data[i:i + n])
            i += n
        return out + [data[i:]]

    bytewise = (lambda data: [data[i:i + 1] for i in range(len(data))]) if target == "host" else (
        lambda data: split(data, [1, 1]))
    chunkings = [(bytewise(ad), bytewise(pt)), ([ad], [pt]), ([b"", ad[:15], b"", ad[15:32], ad[32:]],
                 split(pt, [63, 1, 64, 1, 0, 20])), (split(ad, [17, 16]), split(pt, [15, 17, 33, 14, 1])),
                 ([], split(pt, [65, 70])), (split(ad, [36]), [])]
    for ad_chunks, pt_chunks in chunkings:
        a, m = b"".join(ad_chunks), b"".join(pt_chunks)
        exp = model.aead_encrypt(key, nonce, a, m)
        sizes = ([len(c) for c in ad_chunks], [len(c) for c in pt_chunks])
        ok, got, ctx, rets = d.incremental(fw, key, nonce, ad_chunks, pt_chunks)
        assert got == exp and not any(rets) and not any(ctx), sizes
        ct_chunks = split(exp[:-16], [len(c) for c in pt_chunks][:-1])
        ok, got, ctx, rets = d.incremental(fw, key, nonce, ad_chunks, ct_chunks, exp[-16:])
        assert ok and got == m and not any(rets) and not any(ctx), sizes
    for bad_ad, bad_tag in ((ad, aead.AeadDriver.flip_bit(tag, 0)), (ad, aead.AeadDriver.flip_bit(tag, 127)),
                            (ad[:-1], tag), (ad + b"\x00", tag)):
        ok, got, ctx, _ = d.incremental(fw, key, nonce, [bad_ad], split(body, [64]), bad_tag)
        assert not ok and not any(ctx)
    ok, _, _, _ = d.incremental(fw, key, nonce, [ad], split(body, [64]), tag)
    assert ok
    ctx = fw.call("aead_init", {"ctx": Buf(size=fw.params["ctx_bytes"], out=True), "k": Buf(key),
                                "npub": Buf(nonce)}).outputs[0]
    ctx = fw.call("aead_encrypt_update", {"ctx": Buf(ctx, out=True), "c": Buf(size=0, out=True), "m": Buf(b""),
                                          "mlen": 0}).outputs[0]
    res = fw.call("aead_aad", {"ctx": Buf(ctx, out=True), "ad": Buf(ad), "adlen": len(ad)})
    assert res.return_value in aead.MINUS_ONE and res.outputs[0] == ctx


# --------------------------------------------------------------------------------------------- run
def test_run_contract(capsys: pytest.CaptureFixture[str]) -> None:
    """In process (cli.main): the MAC, a key of the wrong length, a failing tag, an AEAD round trip and a
    forged ciphertext; refusals exit 2 with one line and release nothing."""
    def run(*args: str) -> tuple[int, str, str]:
        try:
            code = main(["run", *args, "--target", "host"])
        except SystemExit as e:
            code = e.code
        out, err = capsys.readouterr()
        return code, out, err

    key = bytes(range(32))
    code, out, err = run("poly1305", "--key", key.hex(), "--input", "616263")
    assert code == 0 and model.poly1305(key, b"abc").hex() in out, err
    code, out, err = run("poly1305", "--key", key.hex()[:-2], "--input", "00")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "32 bytes" in err
    code, out, err = run("poly1305", "--key", key.hex(), "--input", "00", "--tag", "00" * 16)
    assert code == 2 and "authentication failed" in err
    ct = model.aead_encrypt(key, bytes(12), b"", b"hello")
    code, out, err = run("chacha20poly1305", "--key", key.hex(), "--nonce", "00" * 12, "--input", ct.hex(),
                         "--decrypt")
    assert code == 0 and b"hello".hex() in out, err
    code, out, err = run("chacha20poly1305", "--key", key.hex(), "--nonce", "00" * 12,
                         "--input", aead.AeadDriver.flip_bit(ct, 0).hex(), "--decrypt")
    assert code == 2 and "authentication failed" in err and b"hello".hex() not in out


def test_generated_columns_are_current() -> None:
    """avr/poly1305_columns_r8.inc is what avr/gen_poly1305_r8.py writes."""
    gen = ROOT / "crypto/chachapoly/avr/gen_poly1305_r8.py"
    proc = subprocess.run([sys.executable, str(gen), "--check"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
