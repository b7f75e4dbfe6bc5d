#!/usr/bin/python3
"""Reads a Megatron indexed dataset (<prefix>.idx + <prefix>.bin) and prints it as JSON.

Written from docs/formats/megatron.md alone (not from tokenmill's C++ code), so that tests can
check tokenmill's writer against an independent reader. Needs numpy.

  read_megatron.py PREFIX            # header, lengths, document indices and every sequence
  read_megatron.py PREFIX --summary  # without the sequences

Exits 1 with a message naming the file and byte offset if anything disagrees with the spec.
"""
import argparse
import json
import os
import sys

import numpy as np

MAGIC = b"MMIDIDX\x00\x00"
DTYPES = {1: np.uint8, 2: np.int8, 3: np.int16, 4: np.int32, 5: np.int64, 6: np.float64,
          7: np.float32, 8: np.uint16}


class FormatError(Exception):
    pass


def read(prefix):
    idx_path, bin_path = prefix + ".idx", prefix + ".bin"
    with open(idx_path, "rb") as f:
        idx = f.read()
    if len(idx) < 34:
        raise FormatError(f"{idx_path}: {len(idx)} bytes, shorter than the 34-byte header")
    if idx[:9] != MAGIC:
        raise FormatError(f"{idx_path}: byte 0: bad magic {idx[:9]!r}")
    version = int.from_bytes(idx[9:17], "little")
    if version != 1:
        raise FormatError(f"{idx_path}: byte 9: version {version}, expected 1")
    code = idx[17]
    if code not in DTYPES:
        raise FormatError(f"{idx_path}: byte 17: unknown dtype code {code}")
    dtype = np.dtype(DTYPES[code]).newbyteorder("<")
    n = int.from_bytes(idx[18:26], "little")
    d = int.from_bytes(idx[26:34], "little")
    if 34 + 12 * n + 8 * d != len(idx):
        raise FormatError(f"{idx_path}: byte 18: N={n}, D={d} need {34 + 12 * n + 8 * d} bytes, "
                          f"the file has {len(idx)}")
    lengths = np.frombuffer(idx, dtype="<i4", count=n, offset=34)
    pointers = np.frombuffer(idx, dtype="<i8", count=n, offset=34 + 4 * n)
    documents = np.frombuffer(idx, dtype="<i8", count=d, offset=34 + 12 * n)
    if n and lengths.min() < 0:
        raise FormatError(f"{idx_path}: a negative sequence length")
    expected_pointers = np.concatenate(([0], np.cumsum(lengths.astype(np.int64))[:-1])) \
        * dtype.itemsize if n else np.zeros(0, dtype=np.int64)
    if not np.array_equal(pointers, expected_pointers):
        i = int(np.nonzero(pointers != expected_pointers)[0][0])
        raise FormatError(f"{idx_path}: byte {34 + 4 * n + 8 * i}: pointer {int(pointers[i])} of "
                          f"sequence {i}, expected {int(expected_pointers[i])}")
    if d == 0 or documents[0] != 0 or documents[-1] != n or np.any(np.diff(documents) < 0):
        raise FormatError(f"{idx_path}: byte {34 + 12 * n}: bad document indices")
    total = int(lengths.sum()) if n else 0
    bin_size = os.path.getsize(bin_path)
    if bin_size != total * dtype.itemsize:
        raise FormatError(f"{bin_path}: {bin_size} bytes, the index describes "
                          f"{total * dtype.itemsize}")
    data = np.fromfile(bin_path, dtype=dtype)
    sequences = [data[p // dtype.itemsize:p // dtype.itemsize + l].tolist()
                 for p, l in zip(pointers.tolist(), lengths.tolist())]
    return {
        "dtype": np.dtype(DTYPES[code]).name,
        "dtype_code": code,
        "sequence_count": n,
        "document_count": d - 1,
        "sequence_lengths": lengths.tolist(),
        "sequence_pointers": pointers.tolist(),
        "document_indices": documents.tolist(),
        "total_tokens": total,
        "sequences": sequences,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefix")
    parser.add_argument("--summary", action="store_true", help="leave out the sequences")
    args = parser.parse_args()
    try:
        result = read(args.prefix)
    except (FormatError, OSError) as e:
        print(f"read_megatron: {e}", file=sys.stderr)
        return 1
    if args.summary:
        del result["sequences"]
    json.dump(result, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
