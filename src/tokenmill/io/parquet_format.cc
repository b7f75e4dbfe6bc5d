#include "tokenmill/io/parquet_format.h"

#include <algorithm>
#include <cstring>
#include <limits>

namespace tokenmill::parquet {
namespace {

// Thrift compact protocol type ids.
enum CType : uint8_t {
  kStop = 0,
  kTrue = 1,
  kFalse = 2,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDoubleT = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};

// Nesting deeper than this is refused (a real footer nests about 6 levels).
constexpr int kMaxDepth = 64;

// A reader of the compact protocol over one buffer. The first error sticks (`failed()`); reads
// after it return zeros, so decoders check once per struct.
class Compact {
 public:
  explicit Compact(std::string_view bytes) : data_(bytes) {}

  bool failed() const { return !error_.empty(); }
  bool truncated() const { return truncated_; }
  size_t pos() const { return pos_; }
  const std::string& error() const { return error_; }

  void Fail(std::string what) {
    if (error_.empty()) error_ = std::move(what) + " at byte " + std::to_string(pos_);
  }

  uint8_t Byte() {
    if (pos_ >= data_.size()) {
      truncated_ = true;
      Fail("the data ends inside a Thrift value");
      return 0;
    }
    return static_cast<uint8_t>(data_[pos_++]);
  }

  uint64_t Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      const uint8_t b = Byte();
      if (failed()) return 0;
      if (shift == 63 && b > 1) break;
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    Fail("a Thrift varint longer than 10 bytes");
    return 0;
  }

  int64_t Zigzag() {
    const uint64_t v = Varint();
    return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
  }

  int32_t I32() {
    const int64_t v = Zigzag();
    if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
      Fail("a Thrift i32 out of range");
      return 0;
    }
    return static_cast<int32_t>(v);
  }

  std::string_view Binary() {
    const uint64_t n = Varint();
    if (failed()) return {};
    if (n > data_.size() - pos_) {
      truncated_ = true;
      Fail("a Thrift string of " + std::to_string(n) + " bytes runs past the end");
      return {};
    }
    std::string_view s = data_.substr(pos_, n);
    pos_ += n;
    return s;
  }

  // Reads a field header; returns false at the struct's STOP. `last_id` is the previous field's
  // id in this struct.
  bool Field(int16_t* last_id, int16_t* id, uint8_t* type) {
    const uint8_t b = Byte();
    if (failed() || b == kStop) return false;
    *type = b & 0x0f;
    const uint8_t delta = b >> 4;
    if (delta != 0) {
      *id = static_cast<int16_t>(*last_id + delta);
    } else {
      const int64_t v = Zigzag();
      if (v < std::numeric_limits<int16_t>::min() || v > std::numeric_limits<int16_t>::max()) {
        Fail("a Thrift field id out of range");
        return false;
      }
      *id = static_cast<int16_t>(v);
    }
    *last_id = *id;
    return !failed();
  }

  // A list or set header: element type and size.
  uint64_t ListHeader(uint8_t* elem_type) {
    const uint8_t b = Byte();
    *elem_type = b & 0x0f;
    uint64_t n = b >> 4;
    if (n == 15) n = Varint();
    // Every element takes at least one byte (booleans too): a larger size is corrupt.
    if (!failed() && n > data_.size() - pos_) {
      truncated_ = true;
      Fail("a Thrift list of " + std::to_string(n) + " elements runs past the end");
      return 0;
    }
    return failed() ? 0 : n;
  }

  bool Bool(uint8_t type) {
    // In a struct field the value is the type id itself.
    return type == kTrue;
  }

  void Skip(uint8_t type, int depth = 0) {
    if (depth > kMaxDepth) {
      Fail("Thrift values nested more than " + std::to_string(kMaxDepth) + " deep");
      return;
    }
    switch (type) {
      case kTrue:
      case kFalse:
        return;
      case kByte:
        Byte();
        return;
      case kI16:
      case kI32:
      case kI64:
        Varint();
        return;
      case kDoubleT:
        for (int i = 0; i < 8; ++i) Byte();
        return;
      case kBinary:
        Binary();
        return;
      case kList:
      case kSet: {
        uint8_t et = 0;
        const uint64_t n = ListHeader(&et);
        for (uint64_t i = 0; i < n && !failed(); ++i) {
          if (et == kTrue || et == kFalse) {
            Byte();  // booleans in collections take one byte each
          } else {
            Skip(et, depth + 1);
          }
        }
        return;
      }
      case kMap: {
        const uint64_t n = Varint();
        if (n == 0 || failed()) return;
        if (n > data_.size() - pos_) {
          truncated_ = true;
          Fail("a Thrift map runs past the end");
          return;
        }
        const uint8_t kv = Byte();
        for (uint64_t i = 0; i < n && !failed(); ++i) {
          for (const uint8_t t : {static_cast<uint8_t>(kv >> 4), static_cast<uint8_t>(kv & 15)}) {
            if (t == kTrue || t == kFalse) {
              Byte();
            } else {
              Skip(t, depth + 1);
            }
          }
        }
        return;
      }
      case kStruct: {
        int16_t last = 0, id = 0;
        uint8_t t = 0;
        while (Field(&last, &id, &t)) Skip(t, depth + 1);
        return;
      }
      default:
        Fail("an unknown Thrift type id " + std::to_string(type));
    }
  }

  // Checks that a field has the expected type; skips it and returns false otherwise (a writer
  // from a newer format version may reuse nothing, but a corrupt footer may).
  bool Expect(uint8_t type, uint8_t want, const char* what) {
    const bool ok = type == want || (want == kTrue && type == kFalse);
    if (!ok) Fail(std::string("field ") + what + " has Thrift type " + std::to_string(type));
    return ok;
  }

 private:
  std::string_view data_;
  size_t pos_ = 0;
  std::string error_;
  bool truncated_ = false;
};

// Struct decoders. Each reads fields until STOP, keeps the known ones, skips the rest.
template <typename F>
void ReadStruct(Compact& c, int depth, F&& on_field) {
  if (depth > kMaxDepth) {
    c.Fail("Thrift structs nested too deep");
    return;
  }
  int16_t last = 0, id = 0;
  uint8_t type = 0;
  while (c.Field(&last, &id, &type)) {
    if (!on_field(id, type)) c.Skip(type, depth + 1);
    if (c.failed()) return;
  }
}

int64_t ReadI64Field(Compact& c, uint8_t type, const char* what) {
  if (!c.Expect(type, kI64, what)) return 0;
  return c.Zigzag();
}
int32_t ReadI32Field(Compact& c, uint8_t type, const char* what) {
  if (!c.Expect(type, kI32, what)) return 0;
  return c.I32();
}

SchemaElement ReadSchemaElement(Compact& c, int depth) {
  SchemaElement e;
  ReadStruct(c, depth, [&](int16_t id, uint8_t type) {
    switch (id) {
      case 1:
        e.type = ReadI32Field(c, type, "SchemaElement.type");
        return true;
      case 3:
        e.repetition = ReadI32Field(c, type, "SchemaElement.repetition_type");
        return true;
      case 4:
        if (c.Expect(type, kBinary, "SchemaElement.name")) e.name = std::string(c.Binary());
        return true;
      case 5:
        e.num_children = ReadI32Field(c, type, "SchemaElement.num_children");
        return true;
      case 6:
        e.converted_type = ReadI32Field(c, type, "SchemaElement.converted_type");
        return true;
      case 10:
        if (!c.Expect(type, kStruct, "SchemaElement.logicalType")) return true;
        // A union: the id of its one set field is the logical type.
        ReadStruct(c, depth + 1, [&](int16_t lid, uint8_t) {
          e.logical_type = lid;
          return false;
        });
        return true;
      default:
        return false;
    }
  });
  return e;
}

ColumnChunk ReadColumnChunk(Compact& c, int depth) {
  ColumnChunk cc;
  ReadStruct(c, depth, [&](int16_t id, uint8_t type) {
    switch (id) {
      case 1:
        if (c.Expect(type, kBinary, "ColumnChunk.file_path")) cc.file_path = c.Binary();
        return true;
      case 3:
        if (!c.Expect(type, kStruct, "ColumnChunk.meta_data")) return true;
        cc.has_meta_data = true;
        ReadStruct(c, depth + 1, [&](int16_t mid, uint8_t mtype) {
          switch (mid) {
            case 1:
              cc.type = ReadI32Field(c, mtype, "ColumnMetaData.type");
              return true;
            case 3: {
              if (!c.Expect(mtype, kList, "ColumnMetaData.path_in_schema")) return true;
              uint8_t et = 0;
              const uint64_t n = c.ListHeader(&et);
              if (n > 0 && et != kBinary) {
                c.Fail("ColumnMetaData.path_in_schema is not a list of strings");
                return true;
              }
              for (uint64_t i = 0; i < n && !c.failed(); ++i) {
                cc.path_in_schema.emplace_back(c.Binary());
              }
              return true;
            }
            case 4:
              cc.codec = ReadI32Field(c, mtype, "ColumnMetaData.codec");
              return true;
            case 5:
              cc.num_values = ReadI64Field(c, mtype, "ColumnMetaData.num_values");
              return true;
            case 6:
              cc.total_uncompressed_size =
                  ReadI64Field(c, mtype, "ColumnMetaData.total_uncompressed_size");
              return true;
            case 7:
              cc.total_compressed_size =
                  ReadI64Field(c, mtype, "ColumnMetaData.total_compressed_size");
              return true;
            case 9:
              cc.data_page_offset = ReadI64Field(c, mtype, "ColumnMetaData.data_page_offset");
              return true;
            case 11:
              cc.dictionary_page_offset =
                  ReadI64Field(c, mtype, "ColumnMetaData.dictionary_page_offset");
              return true;
            default:
              return false;
          }
        });
        return true;
      case 8:
      case 9:
        cc.encrypted = true;
        return false;
      default:
        return false;
    }
  });
  return cc;
}

RowGroup ReadRowGroup(Compact& c, int depth) {
  RowGroup rg;
  ReadStruct(c, depth, [&](int16_t id, uint8_t type) {
    switch (id) {
      case 1: {
        if (!c.Expect(type, kList, "RowGroup.columns")) return true;
        uint8_t et = 0;
        const uint64_t n = c.ListHeader(&et);
        if (n > 0 && et != kStruct) {
          c.Fail("RowGroup.columns is not a list of structs");
          return true;
        }
        for (uint64_t i = 0; i < n && !c.failed(); ++i) {
          rg.columns.push_back(ReadColumnChunk(c, depth + 1));
        }
        return true;
      }
      case 2:
        rg.total_byte_size = ReadI64Field(c, type, "RowGroup.total_byte_size");
        return true;
      case 3:
        rg.num_rows = ReadI64Field(c, type, "RowGroup.num_rows");
        return true;
      default:
        return false;
    }
  });
  return rg;
}

}  // namespace

std::string CodecName(int32_t codec) {
  switch (codec) {
    case kUncompressed:
      return "UNCOMPRESSED";
    case kSnappy:
      return "SNAPPY";
    case kGzip:
      return "GZIP";
    case kLzo:
      return "LZO";
    case kBrotli:
      return "BROTLI";
    case kLz4Hadoop:
      return "LZ4";
    case kZstd:
      return "ZSTD";
    case kLz4Raw:
      return "LZ4_RAW";
  }
  return "codec " + std::to_string(codec);
}

std::string EncodingName(int32_t encoding) {
  switch (encoding) {
    case kPlain:
      return "PLAIN";
    case 1:
      return "GROUP_VAR_INT";
    case kPlainDictionary:
      return "PLAIN_DICTIONARY";
    case kRle:
      return "RLE";
    case kBitPacked:
      return "BIT_PACKED";
    case kDeltaBinaryPacked:
      return "DELTA_BINARY_PACKED";
    case kDeltaLengthByteArray:
      return "DELTA_LENGTH_BYTE_ARRAY";
    case kDeltaByteArray:
      return "DELTA_BYTE_ARRAY";
    case kRleDictionary:
      return "RLE_DICTIONARY";
    case kByteStreamSplit:
      return "BYTE_STREAM_SPLIT";
  }
  return "encoding " + std::to_string(encoding);
}

std::string PhysicalTypeName(int32_t type) {
  static constexpr const char* kNames[] = {
      "BOOLEAN", "INT32",  "INT64",      "INT96",
      "FLOAT",   "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
  if (type >= 0 && type < 8) return kNames[type];
  return "type " + std::to_string(type);
}

int64_t ColumnChunk::Start() const {
  if (dictionary_page_offset.has_value() && *dictionary_page_offset > 0 &&
      *dictionary_page_offset < data_page_offset) {
    return *dictionary_page_offset;
  }
  return data_page_offset;
}

int64_t RowGroup::Start() const {
  int64_t start = std::numeric_limits<int64_t>::max();
  for (const ColumnChunk& c : columns) start = std::min(start, c.Start());
  return columns.empty() ? 0 : start;
}

StatusOr<FileMetaData> ParseFileMetaData(std::string_view bytes) {
  Compact c(bytes);
  FileMetaData meta;
  ReadStruct(c, 0, [&](int16_t id, uint8_t type) {
    switch (id) {
      case 1:
        meta.version = ReadI32Field(c, type, "FileMetaData.version");
        return true;
      case 2: {
        if (!c.Expect(type, kList, "FileMetaData.schema")) return true;
        uint8_t et = 0;
        const uint64_t n = c.ListHeader(&et);
        if (n > 0 && et != kStruct) {
          c.Fail("FileMetaData.schema is not a list of structs");
          return true;
        }
        for (uint64_t i = 0; i < n && !c.failed(); ++i) {
          meta.schema.push_back(ReadSchemaElement(c, 1));
        }
        return true;
      }
      case 3:
        meta.num_rows = ReadI64Field(c, type, "FileMetaData.num_rows");
        return true;
      case 4: {
        if (!c.Expect(type, kList, "FileMetaData.row_groups")) return true;
        uint8_t et = 0;
        const uint64_t n = c.ListHeader(&et);
        if (n > 0 && et != kStruct) {
          c.Fail("FileMetaData.row_groups is not a list of structs");
          return true;
        }
        for (uint64_t i = 0; i < n && !c.failed(); ++i) {
          meta.row_groups.push_back(ReadRowGroup(c, 1));
        }
        return true;
      }
      case 6:
        if (c.Expect(type, kBinary, "FileMetaData.created_by")) meta.created_by = c.Binary();
        return true;
      case 8:
        meta.encrypted_footer_algorithm = true;
        return false;
      default:
        return false;
    }
  });
  if (c.failed()) return Status::DataLoss("corrupt footer (FileMetaData): " + c.error());
  return meta;
}

StatusOr<PageHeader> ParsePageHeader(std::string_view bytes, size_t* header_size, bool* truncated) {
  Compact c(bytes);
  *truncated = false;
  PageHeader h;
  ReadStruct(c, 0, [&](int16_t id, uint8_t type) {
    switch (id) {
      case 1:
        h.type = ReadI32Field(c, type, "PageHeader.type");
        return true;
      case 2:
        h.uncompressed_page_size = ReadI32Field(c, type, "PageHeader.uncompressed_page_size");
        return true;
      case 3:
        h.compressed_page_size = ReadI32Field(c, type, "PageHeader.compressed_page_size");
        return true;
      case 5: {
        if (!c.Expect(type, kStruct, "PageHeader.data_page_header")) return true;
        DataPageHeader d;
        ReadStruct(c, 1, [&](int16_t f, uint8_t t) {
          switch (f) {
            case 1:
              d.num_values = ReadI32Field(c, t, "DataPageHeader.num_values");
              return true;
            case 2:
              d.encoding = ReadI32Field(c, t, "DataPageHeader.encoding");
              return true;
            case 3:
              d.definition_level_encoding =
                  ReadI32Field(c, t, "DataPageHeader.definition_level_encoding");
              return true;
            case 4:
              d.repetition_level_encoding =
                  ReadI32Field(c, t, "DataPageHeader.repetition_level_encoding");
              return true;
            default:
              return false;
          }
        });
        h.data_page = d;
        return true;
      }
      case 7: {
        if (!c.Expect(type, kStruct, "PageHeader.dictionary_page_header")) return true;
        DictionaryPageHeader d;
        ReadStruct(c, 1, [&](int16_t f, uint8_t t) {
          switch (f) {
            case 1:
              d.num_values = ReadI32Field(c, t, "DictionaryPageHeader.num_values");
              return true;
            case 2:
              d.encoding = ReadI32Field(c, t, "DictionaryPageHeader.encoding");
              return true;
            default:
              return false;
          }
        });
        h.dictionary_page = d;
        return true;
      }
      case 8: {
        if (!c.Expect(type, kStruct, "PageHeader.data_page_header_v2")) return true;
        DataPageHeaderV2 d;
        ReadStruct(c, 1, [&](int16_t f, uint8_t t) {
          switch (f) {
            case 1:
              d.num_values = ReadI32Field(c, t, "DataPageHeaderV2.num_values");
              return true;
            case 2:
              d.num_nulls = ReadI32Field(c, t, "DataPageHeaderV2.num_nulls");
              return true;
            case 3:
              d.num_rows = ReadI32Field(c, t, "DataPageHeaderV2.num_rows");
              return true;
            case 4:
              d.encoding = ReadI32Field(c, t, "DataPageHeaderV2.encoding");
              return true;
            case 5:
              d.definition_levels_byte_length =
                  ReadI32Field(c, t, "DataPageHeaderV2.definition_levels_byte_length");
              return true;
            case 6:
              d.repetition_levels_byte_length =
                  ReadI32Field(c, t, "DataPageHeaderV2.repetition_levels_byte_length");
              return true;
            case 7:
              if (c.Expect(t, kTrue, "DataPageHeaderV2.is_compressed"))
                d.is_compressed = t == kTrue;
              return true;
            default:
              return false;
          }
        });
        h.data_page_v2 = d;
        return true;
      }
      default:
        return false;
    }
  });
  if (c.failed()) {
    *truncated = c.truncated();
    return Status::DataLoss("corrupt page header: " + c.error());
  }
  if (h.compressed_page_size < 0 || h.uncompressed_page_size < 0) {
    return Status::DataLoss("corrupt page header: negative page size");
  }
  *header_size = c.pos();
  return h;
}

Status ValidateSchema(const FileMetaData& meta) {
  if (meta.schema.empty()) return Status::DataLoss("the footer has an empty schema");
  // Walk the tree: each group consumes num_children following elements.
  std::vector<int64_t> remaining{1};
  for (size_t i = 0; i < meta.schema.size(); ++i) {
    while (!remaining.empty() && remaining.back() == 0) remaining.pop_back();
    if (remaining.empty()) {
      return Status::DataLoss("the schema has " + std::to_string(meta.schema.size() - i) +
                              " elements beyond its tree");
    }
    --remaining.back();
    const SchemaElement& e = meta.schema[i];
    if (e.num_children < 0) return Status::DataLoss("a schema element has a negative child count");
    if (e.num_children > 0) {
      if (remaining.size() > 100) return Status::DataLoss("the schema nests more than 100 deep");
      remaining.push_back(e.num_children);
    } else if (i > 0 && !e.type.has_value()) {
      return Status::DataLoss("schema element \"" + e.name + "\" has neither a type nor children");
    }
  }
  while (!remaining.empty() && remaining.back() == 0) remaining.pop_back();
  if (!remaining.empty()) return Status::DataLoss("the schema ends before its tree is complete");
  return Status::Ok();
}

std::vector<LeafColumn> LeafColumns(const FileMetaData& meta) {
  std::vector<LeafColumn> leaves;
  // Stack of (children left, definition level, repetition level, path length) per open group.
  struct Open {
    int64_t left;
    int16_t def;
    int16_t rep;
  };
  std::vector<Open> stack;
  std::vector<std::string> path;
  for (size_t i = 0; i < meta.schema.size(); ++i) {
    const SchemaElement& e = meta.schema[i];
    int16_t def = 0, rep = 0;
    if (i > 0) {
      while (!stack.empty() && stack.back().left == 0) {
        stack.pop_back();
        if (!path.empty()) path.pop_back();
      }
      if (stack.empty()) break;
      --stack.back().left;
      def = stack.back().def;
      rep = stack.back().rep;
      if (e.repetition == kOptional) ++def;
      if (e.repetition == kRepeated) {
        ++def;
        ++rep;
      }
    }
    if (e.num_children > 0) {
      stack.push_back({e.num_children, def, rep});
      if (i > 0) path.push_back(e.name);
      continue;
    }
    if (i == 0) continue;
    LeafColumn leaf;
    leaf.leaf_index = leaves.size();
    leaf.path = path;
    leaf.path.push_back(e.name);
    leaf.type = e.type.value_or(-1);
    leaf.max_definition_level = def;
    leaf.max_repetition_level = rep;
    if (leaf.type == kByteArray) {
      if (e.logical_type.has_value()) {
        leaf.is_string = *e.logical_type == 1 || *e.logical_type == 4 || *e.logical_type == 12;
      } else if (e.converted_type.has_value()) {
        leaf.is_string =
            *e.converted_type == 0 || *e.converted_type == 4 || *e.converted_type == 19;
      } else {
        leaf.is_string = true;  // plain binary: read as text
      }
    }
    leaves.push_back(std::move(leaf));
  }
  return leaves;
}

std::string DescribeColumns(const FileMetaData& meta) {
  std::string out;
  const std::vector<LeafColumn> leaves = LeafColumns(meta);
  for (const LeafColumn& leaf : leaves) {
    if (!out.empty()) out += ", ";
    for (size_t i = 0; i < leaf.path.size(); ++i) {
      if (i > 0) out += '.';
      out += leaf.path[i];
    }
    out += " (" + PhysicalTypeName(leaf.type);
    if (leaf.type == kByteArray) out += leaf.is_string ? " string" : " non-string";
    if (leaf.max_repetition_level > 0) out += ", repeated";
    out += ")";
  }
  if (out.empty()) out = "none";
  return out;
}

}  // namespace tokenmill::parquet
