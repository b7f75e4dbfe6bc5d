#!/usr/bin/python3
"""Reads a TFRecord file of tf.train.Example records and prints them as JSON.

Written from docs/formats/tfrecord.md alone (not from tokenmill's C++ code): the framing and its
masked CRC-32C are checked here, and each record's data is decoded by protoc itself
(`protoc --decode=tensorflow.Example tf_example.proto`), whose text output is parsed back.

  read_tfrecord.py FILE          # [{"offset": ..., "features": {key: [values]}}, ...]
  read_tfrecord.py FILE --text   # protoc's text for each record instead of parsed features

Exits 1 with a message naming the file and byte offset on a framing or CRC error.
"""
import argparse
import json
import os
import re
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def _crc_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


TABLE = _crc_table()


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc = TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked(data):
    crc = crc32c(data)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


class FormatError(Exception):
    pass


def records(path):
    """Yields (offset, data) for each record, checking both CRCs."""
    with open(path, "rb") as f:
        blob = f.read()
    pos = 0
    while pos < len(blob):
        if len(blob) - pos < 12:
            raise FormatError(f"{path}: byte {pos}: truncated record header")
        length, length_crc = struct.unpack_from("<QI", blob, pos)
        if masked(blob[pos:pos + 8]) != length_crc:
            raise FormatError(f"{path}: byte {pos}: length CRC mismatch")
        end = pos + 12 + length + 4
        if end > len(blob):
            raise FormatError(f"{path}: byte {pos}: record runs past the end of the file")
        data = blob[pos + 12:pos + 12 + length]
        (data_crc,) = struct.unpack_from("<I", blob, pos + 12 + length)
        if masked(data) != data_crc:
            raise FormatError(f"{path}: byte {pos}: data CRC mismatch")
        yield pos, data
        pos = end


def protoc_decode(data):
    out = subprocess.run(
        ["protoc", f"--proto_path={HERE}", "--decode=tensorflow.Example", "tf_example.proto"],
        input=data, capture_output=True, check=False)
    if out.returncode != 0:
        raise FormatError("protoc --decode failed: " + out.stderr.decode(errors="replace"))
    return out.stdout.decode()


def parse_text(text):
    """Parses protoc's text format of an Example into {key: [int values]}."""
    features = {}
    key = None
    for line in text.splitlines():
        line = line.strip()
        m = re.fullmatch(r'key: "(.*)"', line)
        if m:
            key = m.group(1)
            features[key] = []
            continue
        m = re.fullmatch(r"value: (-?\d+)", line)
        if m and key is not None:
            features[key].append(int(m.group(1)))
    return features


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--text", action="store_true", help="print protoc's text per record")
    args = parser.parse_args()
    result = []
    try:
        for offset, data in records(args.file):
            text = protoc_decode(data)
            entry = {"offset": offset, "bytes": len(data)}
            if args.text:
                entry["text"] = text
            else:
                entry["features"] = parse_text(text)
            result.append(entry)
    except (FormatError, OSError) as e:
        print(f"read_tfrecord: {e}", file=sys.stderr)
        return 1
    json.dump(result, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
