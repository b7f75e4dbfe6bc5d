"""A small stand-in for the parts of TensorFlow 1.x that google-research/bert's
create_pretraining_data.py and tokenization.py use, so that the unmodified scripts run on Debian
(python3 and python3-protobuf only) in tokenmill's tests:

  tf.flags (DEFINE_string/bool/integer/float, FLAGS, mark_flag_as_required), tf.app.run,
  tf.logging (set_verbosity, info, INFO), tf.gfile (GFile, Glob), tf.python_io.TFRecordWriter,
  tf.train.Example / Features / Feature / Int64List / FloatList (real protobuf messages built
  from tensorflow/core/example/{example,feature}.proto's schema).

Put the parent folder of this package first on PYTHONPATH.
"""

import glob as _glob
import struct as _struct
import sys as _sys
import types as _types

from google.protobuf import descriptor_pb2 as _descriptor_pb2
from google.protobuf import descriptor_pool as _descriptor_pool
from google.protobuf import message_factory as _message_factory

# ---- flags ------------------------------------------------------------------------------------


class _Flags(object):
    def __init__(self):
        object.__setattr__(self, "_defs", {})
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "_required", set())

    def __getattr__(self, name):
        values = object.__getattribute__(self, "_values")
        if name not in values:
            raise AttributeError(name)
        return values[name]

    def __setattr__(self, name, value):
        self._values[name] = value

    def _parse(self, argv):
        rest = [argv[0]]
        for arg in argv[1:]:
            if not arg.startswith("--"):
                rest.append(arg)
                continue
            name, eq, value = arg[2:].partition("=")
            kind = self._defs.get(name)
            if kind is None and name.startswith("no") and self._defs.get(name[2:]) is bool:
                self._values[name[2:]] = False
                continue
            if kind is None:
                raise SystemExit("unknown flag --%s" % name)
            if kind is bool:
                self._values[name] = (not eq) or value.lower() in ("1", "true", "yes")
            else:
                self._values[name] = kind(value)
        for name in self._required:
            if self._values.get(name) is None:
                raise SystemExit("flag --%s is required" % name)
        return rest


FLAGS = _Flags()


def _define(kind):
    def define(name, default, help=None):  # noqa: A002 (TensorFlow's signature)
        FLAGS._defs[name] = kind
        FLAGS._values[name] = default
    return define


flags = _types.SimpleNamespace(
    FLAGS=FLAGS,
    DEFINE_string=_define(str),
    DEFINE_bool=_define(bool),
    DEFINE_boolean=_define(bool),
    DEFINE_integer=_define(int),
    DEFINE_float=_define(float),
    mark_flag_as_required=lambda name: FLAGS._required.add(name),
)


def _run(main=None, argv=None):
    rest = FLAGS._parse(argv if argv is not None else _sys.argv)
    main = main or _sys.modules["__main__"].main
    _sys.exit(main(rest))


app = _types.SimpleNamespace(run=_run)

# ---- logging ----------------------------------------------------------------------------------

_verbosity = [20]


def _log(level):
    def log(msg, *args):
        if level >= _verbosity[0]:
            _sys.stderr.write((msg % args if args else msg) + "\n")
    return log


logging = _types.SimpleNamespace(
    DEBUG=10, INFO=20, WARN=30, ERROR=40,
    set_verbosity=lambda v: _verbosity.__setitem__(0, v),
    debug=_log(10), info=_log(20), warning=_log(30), warn=_log(30), error=_log(40),
)

# ---- gfile ------------------------------------------------------------------------------------


def _gfile_open(path, mode="r"):
    if "b" in mode:
        return open(path, mode)
    return open(path, mode, encoding="utf-8")


gfile = _types.SimpleNamespace(GFile=_gfile_open, Open=_gfile_open,
                               Glob=lambda pattern: sorted(_glob.glob(pattern)))

# ---- TFRecord ---------------------------------------------------------------------------------


def _crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_CRC_TABLE = _crc32c_table()


def _crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c = _CRC_TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def _masked_crc(data):
    c = _crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


class TFRecordWriter(object):
    def __init__(self, path):
        self._f = open(path, "wb")

    def write(self, record):
        header = _struct.pack("<Q", len(record))
        self._f.write(header + _struct.pack("<I", _masked_crc(header)))
        self._f.write(record + _struct.pack("<I", _masked_crc(record)))

    def close(self):
        self._f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


python_io = _types.SimpleNamespace(TFRecordWriter=TFRecordWriter)
io = _types.SimpleNamespace(TFRecordWriter=TFRecordWriter, gfile=gfile)

# ---- tf.train.Example -------------------------------------------------------------------------


def _build_example_messages():
    fdp = _descriptor_pb2.FileDescriptorProto()
    fdp.name = "tokenmill_tfstub/example.proto"
    fdp.package = "tensorflow"
    fdp.syntax = "proto3"
    F = _descriptor_pb2.FieldDescriptorProto

    def message(name, fields, nested=None):
        m = fdp.message_type.add() if nested is None else nested.nested_type.add()
        m.name = name
        for number, (fname, ftype, label, type_name, packed) in enumerate(fields, 1):
            f = m.field.add()
            f.name, f.number, f.type, f.label = fname, number, ftype, label
            if type_name:
                f.type_name = type_name
            if packed:
                f.options.packed = True
        return m

    rep, opt = F.LABEL_REPEATED, F.LABEL_OPTIONAL
    message("BytesList", [("value", F.TYPE_BYTES, rep, None, False)])
    message("FloatList", [("value", F.TYPE_FLOAT, rep, None, True)])
    message("Int64List", [("value", F.TYPE_INT64, rep, None, True)])
    feature = message("Feature", [
        ("bytes_list", F.TYPE_MESSAGE, opt, ".tensorflow.BytesList", False),
        ("float_list", F.TYPE_MESSAGE, opt, ".tensorflow.FloatList", False),
        ("int64_list", F.TYPE_MESSAGE, opt, ".tensorflow.Int64List", False)])
    feature.oneof_decl.add().name = "kind"
    for f in feature.field:
        f.oneof_index = 0
    features = message("Features", [
        ("feature", F.TYPE_MESSAGE, rep, ".tensorflow.Features.FeatureEntry", False)])
    entry = message("FeatureEntry", [
        ("key", F.TYPE_STRING, opt, None, False),
        ("value", F.TYPE_MESSAGE, opt, ".tensorflow.Feature", False)], nested=features)
    entry.options.map_entry = True
    message("Example", [("features", F.TYPE_MESSAGE, opt, ".tensorflow.Features", False)])

    pool = _descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    names = ["BytesList", "FloatList", "Int64List", "Feature", "Features", "Example"]
    if hasattr(_message_factory, "GetMessageClass"):
        get = lambda n: _message_factory.GetMessageClass(  # noqa: E731
            pool.FindMessageTypeByName("tensorflow." + n))
    else:
        factory = _message_factory.MessageFactory(pool)
        get = lambda n: factory.GetPrototype(  # noqa: E731
            pool.FindMessageTypeByName("tensorflow." + n))
    return {n: get(n) for n in names}


_messages = _build_example_messages()
train = _types.SimpleNamespace(**_messages)
