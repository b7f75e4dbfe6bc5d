#!/usr/bin/python3
"""Reads an llm.c token file (.bin) and prints it as JSON.

Written from docs/formats/llmc.md alone (not from tokenmill's C++ code), so that tests can check
tokenmill's writer against an independent reader. Needs numpy.

  read_llmc.py FILE              # header and tokens
  read_llmc.py FILE --eod 50256  # also the documents: split before each end-of-text token

Exits 1 with a message naming the file and byte offset if anything disagrees with the spec.
"""
import argparse
import json
import os
import sys

import numpy as np

LAYOUTS = {20240520: (1, "<u2"), 20240801: (7, "<u4")}


class FormatError(Exception):
    pass


def read(path, eod=None):
    size = os.path.getsize(path)
    if size < 1024:
        raise FormatError(f"{path}: {size} bytes, shorter than the 1024-byte header")
    header = np.fromfile(path, dtype="<i4", count=256)
    magic, version, count = (int(v) for v in header[:3])
    if magic not in LAYOUTS:
        raise FormatError(f"{path}: byte 0: bad magic {magic}")
    want_version, dtype = LAYOUTS[magic]
    if version != want_version:
        raise FormatError(f"{path}: byte 4: version {version} with magic {magic}, "
                          f"expected {want_version}")
    if count <= 0:
        raise FormatError(f"{path}: byte 8: token count {count} is not positive")
    if np.any(header[3:] != 0):
        i = 3 + int(np.nonzero(header[3:])[0][0])
        raise FormatError(f"{path}: byte {4 * i}: reserved header int {i} is not zero")
    width = np.dtype(dtype).itemsize
    if size != 1024 + count * width:
        raise FormatError(f"{path}: {size} bytes, the header announces {count} tokens of "
                          f"{width} bytes")
    tokens = np.fromfile(path, dtype=dtype, offset=1024)
    result = {"magic": magic, "version": version, "token_count": count, "token_bytes": width,
              "tokens": tokens.tolist()}
    if eod is not None:
        starts = [i for i, t in enumerate(result["tokens"]) if t == eod]
        if not starts or starts[0] != 0:
            starts = [0] + starts
        ends = starts[1:] + [count]
        result["documents"] = [result["tokens"][s:e] for s, e in zip(starts, ends)]
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--eod", type=int, help="end-of-text id that starts each document")
    args = parser.parse_args()
    try:
        result = read(args.file, args.eod)
    except (FormatError, OSError) as e:
        print(f"read_llmc: {e}", file=sys.stderr)
        return 1
    json.dump(result, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
