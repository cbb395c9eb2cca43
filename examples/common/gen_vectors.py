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
               (TinyJAMBU, Ascon: the KAT counts AEAD_COUNTS; the files whose Count names a file and a
               record, as RFC 8439 and NIST CAVP GCM/CCM: the first records that fit 32-byte buffers)
  hash:        mlen (1) || zlen (1) || msg || z || digest (OUT_BYTES)   (SHA-2, SHA-3: NIST CAVP messages, zlen 0)
  xof:         mlen (1) || outlen (1) || msg || output (outlen)        (SHAKE: an XOF without a `hash` op)
  mac:         keylen (1) || mlen (1) || taglen (1) || key || msg || tag  (RFC 4231, RFC 4493, CAVP CMAC;
               a tag may be truncated; a fixed key length (Poly1305, AES-CMAC): EX_DEFINE_MAC_FIXED_KEY,
               messages up to 160 bytes)
  kdf:         ikmlen (1) || saltlen (1) || infolen (1) || L (1) || ikm || salt || info || okm (L)
  signature:   pklen (2) || mlen (2) || siglen (2) || valid (1) || pk || msg || sig   (lengths little-endian;
               verification only: the first SIGNATURE_VALID valid records and the first invalid one whose
               key, message and signature fit SIGNATURE_MAX_BYTES, so the buffers fit the ATmega128's 4 KiB.
               ML-DSA's keys and signatures (3.7 to 7.2 KB) do not: its vectors run on every board through
               the kind's tests, not in the example)
  kem:         ek || m || ct || ss                      (one ACVP encapsulation test per id: encaps)
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
# Poly1305: the records whose message fits the example's 160-byte buffer.
POLY1305_MAX_MSG = 160
# AEAD files whose Count is "<file> <n>" (RFC 8439, NIST CAVP GCM and CCM): the first records whose message and
# AD fit the example's 32-byte buffers, at most this many.
AEAD_FILE_RECORDS = 4
# Signatures: valid records per id (each verified, then refused with a byte flipped; a P-256 verification is
# 110 M cycles on the ATmega128), and the largest key + message + signature the example takes.
SIGNATURE_VALID = 1
SIGNATURE_MAX_BYTES = 1600
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
            if not f["Count"].isdigit():
                if len(pt) > 32 or len(ad) > 32 or len(out) >= AEAD_FILE_RECORDS:
                    continue
            elif int(f["Count"]) not in AEAD_COUNTS:
                continue
            rec = bytes([len(pt), len(ad)]) + v.hex("Key") + v.hex("Nonce") + pt + ad + v.hex("CT")
        elif kind == "dh":
            if "Iterations" in f or ("TcId" in f and int(f["TcId"]) not in DH_TCIDS):
                continue
            rec = v.hex("Scalar") + v.hex("U") + v.hex("Shared")
        elif kind == "kem":
            # one ACVP encapsulation test per id (ek || m || ct || ss): flash holds it, SRAM the ek and ct
            if f["Op"] != "encaps" or out:
                continue
            rec = v.hex("EK") + v.hex("M") + v.hex("C") + v.hex("K")
        elif kind == "hash":
            if "Count" not in f or int(f["Count"]) not in HASH_COUNTS:
                continue
            msg, z = v.hex("Msg"), v.hex("Z") if "Z" in f else b""
            rec = bytes([len(msg), len(z)]) + msg + z + v.hex("MD")
        elif kind == "signature":
            if f["op"] not in ("verify", "sign") or f.get("interface") == "internal":
                continue
            valid = f.get("valid", "True") == "True"
            pk, msg, sig = v.hex("pk"), v.hex("msg"), v.hex("sig")
            taken = [r[6] for r in out]
            if len(pk) + len(msg) + len(sig) > SIGNATURE_MAX_BYTES or \
                    taken.count(int(valid)) >= (SIGNATURE_VALID if valid else 1):
                continue
            lengths = b"".join(n.to_bytes(2, "little") for n in (len(pk), len(msg), len(sig)))
            rec = lengths + bytes([int(valid)]) + pk + msg + sig
        else:
            raise SystemExit(f"no example layout for kind {kind}")
        out.append(rec)
        where.append(v.where)
    if kind == "mpmul":
        out, where = out[-MPMUL_PER_ID:], where[-MPMUL_PER_ID:]
    return out, where


def signature_defines(prim, prim_id: str, recs: list[bytes]) -> list[str]:
    """The buffer sizes of EX_DEFINE_SIGNATURE and EX_<ID>_VERIFY, the scheme's verify through its own
    prototype (a key length where it takes one, an empty context string)."""
    up = prim_id.upper()
    sizes = [[int.from_bytes(r[i:i + 2], "little") for i in (0, 2, 4)] for r in recs]
    pk, msg, sig = (max(col) for col in zip(*sizes))
    impl = next(iter(prim.implementations.values()))
    params = [param.name for param in impl.functions["verify"].params]
    fill = {"sig": "sig", "siglen": "siglen", "msg": "msg", "msglen": "msglen", "pk": "pk", "pklen": "pklen",
            "ctx": "(const uint8_t *)0", "ctxlen": "0"}
    unknown = [p for p in params if p not in fill]
    if unknown:
        raise SystemExit(f"{prim_id}: verify takes {unknown}: no example filling for them")
    call = f"mcu_{prim_id}_verify({', '.join(fill[p] for p in params)})"
    return [f"#define EX_{up}_PK_MAX {pk}", f"#define EX_{up}_MSG_MAX {msg}", f"#define EX_{up}_SIG_MAX {sig}",
            f"#define EX_{up}_VERIFY(sig, siglen, msg, msglen, pk, pklen) {call}"]


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
            lines.append("};")
            if kind == "signature":
                lines += signature_defines(prim, prim_id, recs)
            lines += [f"EX_DEFINE_{macro}({prim_id}, {up})", "#endif", ""]
            checks.append(f"#ifdef MCU_HAVE_{up}\n    failed += ex_check_{prim_id}(&passed);\n#endif")
    lines += ["/* Every check of an id the library holds: the number of vectors that passed, or 1000 + the",
              " * number that failed. */",
              "static int ex_check_all(void)", "{", "    int passed = 0;", "    int failed = 0;", *checks,
              "    return failed ? 1000 + failed : passed;", "}", "", "#endif", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    OUT.write_text(render())
    print(f"wrote {OUT}")
