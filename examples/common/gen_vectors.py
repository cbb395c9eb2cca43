# SPDX-License-Identifier: MIT
"""Writes examples/common/vectors.h: a few official vectors per primitive id, from the catalog's vector
files, as byte strings in flash (PROGMEM on AVR), and the list of checks examples/common/check.c runs for
the ids an exported library holds. Run `python3 examples/common/gen_vectors.py`; tests/test_export.py
fails when the committed header differs from what this writes.

Record layouts (one flat byte string per id, records back to back):
  blockcipher: key || pt || ct                         (KEY_BYTES, BLOCK_BYTES, BLOCK_BYTES)
  stream:      key || nonce || counter (4, LE) || block
  permutation: in || out                               (STATE_BYTES each)
  mpmul:       a || b || p                             (little-endian 32-bit limbs, as the API takes them)
  aead:        mlen (1) || adlen (1) || key || nonce || pt || ad || ct (mlen + TAG_BYTES)
  hash:        mlen (1) || zlen (1) || msg || z || digest (OUT_BYTES)   (SHA-2, SHA-3: NIST CAVP messages, zlen 0)
  xof:         mlen (1) || outlen (1) || msg || output (outlen)        (SHAKE: an XOF without a `hash` op)
  mac:         keylen (1) || mlen (1) || taglen (1) || key || msg || tag  (RFC 4231, RFC 4493, CAVP CMAC;
               a tag may be truncated; a fixed key length (Poly1305, AES-CMAC): EX_DEFINE_MAC_FIXED_KEY,
               messages up to 160 bytes)
  kdf:         ikmlen (1) || saltlen (1) || infolen (1) || L (1) || ikm || salt || info || okm (L)
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from mcucrypt.catalog import load_catalog  # noqa: E402
from mcucrypt.kinds.base import driver_for  # noqa: E402

OUT = Path(__file__).with_name("vectors.h")
# TinyJAMBU: these KAT counts (empty, AD only, message only, both, the longest) out of 1089.
AEAD_COUNTS = (1, 17, 529, 546, 1089)
# Ascon hash/XOF/CXOF: these KAT counts (message, or customization string, of 0, 1, 16 and 32 bytes).
HASH_COUNTS = (1, 2, 17, 33)
# X25519: RFC 7748's two vectors and these Wycheproof tests (32: u = 0, an all-zero shared secret); a few,
# since one scalar multiplication costs up to 70 M cycles on the ATmega128.
DH_TCIDS = (1, 2, 32)
# SHA-2 (NIST SHAVS ShortMsg, no Count field): the messages of these byte lengths (empty, one byte, 32 B).
SHA2_MSG_BYTES = (0, 1, 32)
# SHA-3 and SHAKE (NIST CAVP ShortMsg, no Count field): the same message lengths; SHAKE also two records of its
# VariableOut file (16- or 32-byte messages): the first of the longest output (SHAKE256's 250 bytes cross its
# 136-byte rate) and the first whose output ends inside a lane (a byte length not a multiple of 8).
SHA3_MSG_BYTES = SHA2_MSG_BYTES
# ChaCha20-Poly1305 (RFC 8439; Count = "<file> <n>"), AES-GCM and AES-CCM (CAVP converted, Count = "<file or
# lengths> <n>"; CCM* and CCM-8 also IEEE 802.15.4 Annex C.2): the first records whose message and AD fit the
# example's 32-byte buffers, at most this many.
SHORT_AEAD_FAMILIES = ("chachapoly", "aesgcm", "aesccm")
CHACHAPOLY_RECORDS = 4
# Poly1305: the records whose message fits the example's 160-byte buffer.
POLY1305_MAX_MSG = 160
# mpmul: the last two records per size (the file's random operands after its edge cases), at most.
MPMUL_PER_ID = 2


def _limbs(hexstr: str) -> bytes:
    """Big-endian hex -> little-endian 32-bit limbs, limb 0 first (= the number little-endian)."""
    return bytes.fromhex(hexstr)[::-1]


def _variable_out(vecs) -> set[int]:
    """Indexes of the SHAKE VariableOut records the example takes (see SHA3_MSG_BYTES)."""
    lens = {i: int(v.fields["Outputlen"]) for i, v in enumerate(vecs) if "Outputlen" in v.fields}
    whole = {i: n // 8 for i, n in lens.items() if n % 8 == 0}
    if not whole:
        return set()
    longest = min(i for i, n in whole.items() if n == max(whole.values()))
    partial = min(i for i, n in whole.items() if n % 8)
    return {longest, partial}


def records(kind: str, prim_id: str, vecs, family: str = "", mode: str = "") -> tuple[list[bytes], list[str]]:
    out, where = [], []
    variable_out = _variable_out(vecs) if family == "sha3" else set()
    for i, v in enumerate(vecs):
        f = v.fields
        if kind == "hash" and family in ("sha2", "sha3") and "Len" in f:
            msg = v.hex("Msg")[:int(f["Len"]) // 8]     # SHAVS writes Len = 0 with Msg = 00
            lengths = SHA2_MSG_BYTES if family == "sha2" else SHA3_MSG_BYTES
            if int(f["Len"]) % 8 or len(msg) not in lengths or "LongMsg" in v.file.name:
                continue
            digest = v.hex("Output") if mode == "xof" else v.hex("MD")
            rec = bytes([len(msg), len(digest) if mode == "xof" else 0]) + msg + digest
        elif kind == "hash" and family == "sha3":
            if i not in variable_out:
                continue
            msg, digest = v.hex("Msg"), v.hex("Output")
            rec = bytes([len(msg), len(digest)]) + msg + digest
        elif kind == "mac":
            if "Mlen" in f:     # NIST CAVP CMAC (Msg = 00 when Mlen = 0): one record of each (Mlen, Tlen) group
                if int(f["Count"]) % 8:
                    continue
                msg, md = v.hex("Msg")[:int(f["Mlen"])], v.hex("Mac")
            else:
                msg, md = v.hex("Msg"), v.hex("MD")
            key = v.hex("Key")
            if family == "chachapoly" and len(msg) > POLY1305_MAX_MSG:
                continue
            rec = bytes([len(key), len(msg), len(md)]) + key + msg + md
        elif kind == "kdf":
            ikm, salt, info, okm = v.hex("IKM"), v.hex("salt"), v.hex("info"), v.hex("OKM")
            rec = bytes([len(ikm), len(salt), len(info), len(okm)]) + ikm + salt + info + okm
        elif kind == "blockcipher":
            if "IV" in f:
                continue
            rec = v.hex("Key") + v.hex("PT") + v.hex("CT")
        elif kind == "stream":
            rec = v.hex("Key") + v.hex("Nonce") + int(f["Counter"], 0).to_bytes(4, "little") + v.hex("Block")
        elif kind == "permutation":
            rec = v.hex("In") + v.hex("Out")
        elif kind == "mpmul":
            rec = _limbs(f["A"]) + _limbs(f["B"]) + _limbs(f["P"])
        elif kind == "aead":
            pt, ad = v.hex("PT"), v.hex("AD")
            if family in SHORT_AEAD_FAMILIES:
                if len(pt) > 32 or len(ad) > 32 or len(out) >= CHACHAPOLY_RECORDS:
                    continue
            elif int(f["Count"]) not in AEAD_COUNTS:
                continue
            rec = bytes([len(pt), len(ad)]) + v.hex("Key") + v.hex("Nonce") + pt + ad + v.hex("CT")
        elif kind == "dh":
            if "Iterations" in f or ("TcId" in f and int(f["TcId"]) not in DH_TCIDS):
                continue
            rec = v.hex("Scalar") + v.hex("U") + v.hex("Shared")
        elif kind == "hash":
            if "Count" not in f or int(f["Count"]) not in HASH_COUNTS:
                continue
            msg, z = v.hex("Msg"), v.hex("Z") if "Z" in f else b""
            rec = bytes([len(msg), len(z)]) + msg + z + v.hex("MD")
        else:
            raise SystemExit(f"no example layout for kind {kind}")
        out.append(rec)
        where.append(v.where)
    if kind == "mpmul":
        out, where = out[-MPMUL_PER_ID:], where[-MPMUL_PER_ID:]
    return out, where


def render() -> str:
    cat = load_catalog()
    lines = ["// SPDX-License-Identifier: MIT",
             "/* Generated by examples/common/gen_vectors.py from the official vector files (crypto/<family>/vectors/);",
             " * do not edit. Only the ids the exported library holds (MCU_HAVE_<ID>) are compiled in. */",
             "#ifndef MCUCRYPT_EXAMPLE_VECTORS_H", "#define MCUCRYPT_EXAMPLE_VECTORS_H", ""]
    checks = []
    for prim in cat.primitives.values():
        if prim.model is None:
            continue
        for prim_id, params in prim.instances.items():
            kind = params.get("kind", prim.kind)     # a suite's ids (Ascon) name their own kind
            recs, where = records(kind, prim_id, driver_for(prim.kind).vectors(prim, prim_id), prim.name,
                                params.get("mode", ""))
            if not recs:
                continue
            up = prim_id.upper()
            data = b"".join(recs)
            lines.append(f"#ifdef MCU_HAVE_{up}")
            lines.append(f"/* {len(recs)} records: {', '.join(where)} */")
            lines.append(f"#define EX_{up}_COUNT {len(recs)}")
            lines.append(f"static const uint8_t EX_ROM ex_{prim_id}[{len(data)}] = {{")
            for i in range(0, len(data), 16):
                lines.append("    " + ", ".join(f"0x{b:02x}" for b in data[i:i + 16]) + ",")
            # SHAKE has no one-shot `hash`: its own check (xof, and init/update/squeeze); Ascon's XOF has one.
            macro = "CXOF" if params.get("mode") == "cxof" else \
                "XOF" if params.get("mode") == "xof" and "hash" not in params.get("ops", ()) else \
                "MAC_FIXED_KEY" if kind == "mac" and "key_bytes" in params else kind.upper()
            lines += ["};", f"EX_DEFINE_{macro}({prim_id}, {up})", "#endif", ""]
            checks.append(f"#ifdef MCU_HAVE_{up}\n    failed += ex_check_{prim_id}(&passed);\n#endif")
    lines += ["/* Every check of an id the library holds: the number of vectors that passed, or 1000 + the",
              " * number that failed. */",
              "static int ex_check_all(void)", "{", "    int passed = 0;", "    int failed = 0;", *checks,
              "    return failed ? 1000 + failed : passed;", "}", "", "#endif", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    OUT.write_text(render())
    print(f"wrote {OUT}")
