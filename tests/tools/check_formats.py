#!/usr/bin/python3
"""Checks shards written by tokenmill's C++ writers with the independent readers in this folder.

Runs formats_sample_writer (which writes every format with the real ShardWriter and MergeMegatron,
and a manifest of the examples it was given), then reads every shard back with read_tfrecord.py
(framing + protoc --decode), read_megatron.py and read_llmc.py and compares with the manifest:
records, tokens, masks, segments, shard names and sizes, SHA-256, shard rolling, the dtype or
magic chosen from the vocabulary, and the merged Megatron prefix against the concatenation.

  check_formats.py --writer PATH/formats_sample_writer [--keep DIR]
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# protoc's text for the first record (docs/formats/tfrecord.md, worked example).
TINY_TEXT = """features {
  feature {
    key: "input_ids"
    value {
      int64_list {
        value: 7
        value: 300
      }
    }
  }
  feature {
    key: "input_mask"
    value {
      int64_list {
        value: 1
        value: 0
      }
    }
  }
  feature {
    key: "segment_ids"
    value {
      int64_list {
        value: 0
        value: 0
      }
    }
  }
}
"""

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message, file=sys.stderr)


def run_tool(*args):
    out = subprocess.run([sys.executable, *args], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {out.stderr.strip()}")
    return json.loads(out.stdout)


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def check_files(name, entry, folder, extensions):
    files = entry["files"]
    shard_size = entry["shard_size"]
    stems = sorted({f["name"].rsplit(".", 1)[0] for f in files})
    check(stems == [f"part-000005-{i:03d}" for i in range(len(stems))],
          f"{name}: shard names {stems}")
    on_disk = sorted(n for n in os.listdir(folder) if not n.startswith("merged"))
    check(on_disk == sorted(f["name"] for f in files), f"{name}: files on disk {on_disk}")
    check(len(stems) > 1 or shard_size >= 1 << 20, f"{name}: expected several shards")
    for f in files:
        path = os.path.join(folder, f["name"])
        check(os.path.getsize(path) == f["bytes"], f"{name}: {f['name']} size")
        check(sha256(path) == f["sha256"], f"{name}: {f['name']} sha256")
        check(os.path.splitext(f["name"])[1] in extensions, f"{name}: {f['name']} extension")
    for stem in stems:
        size = sum(f["bytes"] for f in files if f["name"].startswith(stem + "."))
        records = sum(f["examples"] for f in files if f["name"].startswith(stem + "."))
        check(size <= shard_size or records == 1, f"{name}: {stem} has {size} bytes > {shard_size}")


def check_tfrecord(name, entry, folder):
    check_files(name, entry, folder, {".tfrecord"})
    got = []
    for f in entry["files"]:
        path = os.path.join(folder, f["name"])
        records = run_tool(os.path.join(HERE, "read_tfrecord.py"), path)
        check(len(records) == f["examples"], f"{name}: {f['name']} record count")
        got.extend(r["features"] for r in records)
        if name == "tfrecord" and f["name"].endswith("-000.tfrecord"):
            text = run_tool(os.path.join(HERE, "read_tfrecord.py"), path, "--text")[0]["text"]
            check(text == TINY_TEXT, f"{name}: protoc text of the first record:\n{text}")
    want = entry["examples"]
    check(len(got) == len(want), f"{name}: {len(got)} records, wrote {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        expected = {"input_ids": w["tokens"]}
        if w["input_mask"]:
            expected["input_mask"] = w["input_mask"]
        if w["segment_ids"]:
            expected["segment_ids"] = w["segment_ids"]
        check(g == expected, f"{name}: record {i}: {g} != {expected}")
        check(list(g) == sorted(g), f"{name}: record {i}: keys not sorted")


def check_megatron(name, entry, folder):
    check_files(name, entry, folder, {".bin", ".idx"})
    want_dtype = "uint16" if entry["vocab_size"] < 65500 else "int32"
    sequences = []
    for f in entry["files"]:
        if not f["name"].endswith(".bin"):
            check(f["examples"] == 0 and f["tokens"] == 0, f"{name}: {f['name']} counts")
            continue
        prefix = os.path.join(folder, f["name"][:-4])
        data = run_tool(os.path.join(HERE, "read_megatron.py"), prefix)
        check(data["dtype"] == want_dtype, f"{name}: dtype {data['dtype']}")
        n = data["sequence_count"]
        check(n == f["examples"], f"{name}: {f['name']} sequence count")
        check(data["document_indices"] == list(range(n + 1)),
              f"{name}: {f['name']} document indices")
        check(data["total_tokens"] == f["tokens"], f"{name}: {f['name']} tokens")
        sequences.extend(data["sequences"])
    want = [w["tokens"] for w in entry["examples"]]
    check(sequences == want, f"{name}: sequences differ from the examples")
    merged = run_tool(os.path.join(HERE, "read_megatron.py"), os.path.join(folder, "merged"))
    check(merged["sequences"] == sequences, f"{name}: merged != concatenation of the shards")
    check(merged["document_indices"] == list(range(len(want) + 1)),
          f"{name}: merged document indices")
    check(merged["dtype"] == want_dtype, f"{name}: merged dtype")
    for f in entry["merged"]:
        check(sha256(f["local_path"]) == f["sha256"], f"{name}: merged {f['name']} sha256")


def check_llmc(name, entry, folder):
    check_files(name, entry, folder, {".bin"})
    wide = entry["vocab_size"] > 65536
    documents = []
    for f in entry["files"]:
        data = run_tool(os.path.join(HERE, "read_llmc.py"), os.path.join(folder, f["name"]),
                        "--eod", str(entry["eod"]))
        check(data["magic"] == (20240801 if wide else 20240520), f"{name}: magic")
        check(data["version"] == (7 if wide else 1), f"{name}: version")
        check(data["token_count"] == f["tokens"], f"{name}: {f['name']} token count")
        check(len(data["documents"]) == f["examples"], f"{name}: {f['name']} documents")
        check(data["tokens"][0] == entry["eod"], f"{name}: {f['name']} starts without eod")
        documents.extend(data["documents"])
    want = [w["tokens"] for w in entry["examples"]]
    check(documents == want, f"{name}: documents differ from the examples")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writer", required=True)
    parser.add_argument("--keep", help="write into this folder and keep it")
    args = parser.parse_args()
    try:
        import numpy  # noqa: F401
    except ImportError:
        print("check_formats: needs numpy (Debian: apt-get install python3-numpy) and must run "
              "with /usr/bin/python3", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="tm-formats-check-") as tmp:
        out = args.keep or tmp
        os.makedirs(out, exist_ok=True)
        subprocess.run([args.writer, out], check=True)
        with open(os.path.join(out, "manifest.json")) as f:
            manifest = json.load(f)
        checkers = {"tfrecord": check_tfrecord, "megatron": check_megatron, "llmc": check_llmc}
        for name, entry in manifest.items():
            checkers[entry["format"]](name, entry, os.path.join(out, name))
            print(f"{name}: {len(entry['examples'])} examples in {len(entry['files'])} files "
                  "checked")
        check(set(manifest) == {"tfrecord", "tfrecord-gpt", "megatron", "megatron-int32", "llmc",
                                "llmc-uint32"}, "sets")
    if failures:
        print(f"check_formats: {len(failures)} failures", file=sys.stderr)
        return 1
    print("check_formats: all shards agree with the independent readers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
