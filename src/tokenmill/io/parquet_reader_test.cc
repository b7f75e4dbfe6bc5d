// The Parquet reader against files written by parquet-wasm (the Rust parquet crate) and
// hyparquet-writer in every supported layout (testdata/parquet, made by
// tests/parquet/make_testdata.sh and cross-checked there with hyparquet), and against
// hand-built files for the layouts and faults those writers do not produce.

#include "tokenmill/io/parquet_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tokenmill/base/sha256.h"
#include "tokenmill/io/parquet_column.h"
#include "tokenmill/io/test_util.h"
#include "tokenmill/storage/counting_storage.h"

namespace tokenmill {
namespace {

using ::testing::HasSubstr;
using testing::ReadAll;
using testing::ReadFile;
using testing::RepoFile;
using testing::TempDir;

std::string TestdataDir() { return RepoFile("src/tokenmill/io/testdata/parquet"); }

ReaderOptions ParquetOptions(std::string text_field = "text") {
  ReaderOptions o;
  o.format = InputFormat::kParquet;
  o.text_field = std::move(text_field);
  return o;
}

StatusOr<std::unique_ptr<DocumentReader>> Open(const std::string& path, const ReaderOptions& o,
                                               uint64_t begin = 0, uint64_t end = kToEnd) {
  TM_ASSIGN_OR_RETURN(Storage * storage, StorageFor(path));
  return OpenDocumentReader(*storage, InputRange{path, begin, end}, o);
}

StatusOr<std::vector<Document>> ReadPath(const std::string& path, const ReaderOptions& o) {
  TM_ASSIGN_OR_RETURN(auto reader, Open(path, o));
  return ReadAll(*reader);
}

std::string Digest(const std::vector<Document>& docs) {
  std::string all;
  for (const Document& d : docs) {
    all += d.text;
    all.push_back('\0');
  }
  return Sha256Hex(all);
}

nlohmann::json Manifest() {
  return nlohmann::json::parse(ReadFile(TestdataDir() + "/manifest.json"));
}

TEST(ParquetReader, EveryLayoutOfBothWritersReadsAsWritten) {
  const nlohmann::json manifest = Manifest();
  ASSERT_GE(manifest["files"].size(), 30u);
  for (const auto& f : manifest["files"]) {
    const std::string name = f["name"];
    SCOPED_TRACE(name);
    const std::string path = TestdataDir() + "/" + name;
    auto reader = Open(path, ParquetOptions(f["text_field"]));
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    auto docs = ReadAll(**reader);
    ASSERT_TRUE(docs.ok()) << docs.status().ToString();
    EXPECT_EQ(docs->size(), f["documents"].get<size_t>());
    EXPECT_EQ(Digest(*docs), f["sha256"].get<std::string>());
    const ReaderStats& stats = (*reader)->stats();
    EXPECT_EQ(stats.documents, f["documents"].get<uint64_t>());
    EXPECT_EQ(stats.empty_documents, f["empty"].get<uint64_t>());
    EXPECT_EQ(stats.lines, f["rows"].get<uint64_t>());
    EXPECT_EQ(stats.skipped_records, 0u);
    // The footer's tail read, then the text column's chunks not inside it.
    EXPECT_LE(stats.bytes_in, ReadFile(path).size() + kParquetTailRead);
    for (size_t i = 1; i < docs->size(); ++i) {
      ASSERT_GT((*docs)[i].line_number, (*docs)[i - 1].line_number);
    }
  }
}

TEST(ParquetReader, ReadsOnlyTheFooterAndTheTextColumn) {
  // The sample (columns id, text; 752 KB): the footer's tail read, then only the text column's
  // chunks that lie before it.
  const std::string path = RepoFile("data/sample-parquet/part-00.parquet");
  auto* local = *StorageFor(path);
  CountingStorage counting(local);
  auto reader = OpenDocumentReader(counting, InputRange{path, 0, kToEnd}, ParquetOptions());
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto docs = ReadAll(**reader);
  ASSERT_TRUE(docs.ok()) << docs.status().ToString();
  EXPECT_EQ(docs->size(), 1949u);
  const uint64_t size = ReadFile(path).size();
  auto footer = ReadParquetFooter(*local, path, size);
  ASSERT_TRUE(footer.ok());
  uint64_t want = footer->bytes_read, id_bytes = 0;
  for (const auto& rg : footer->meta.row_groups) {
    const auto& text = rg.columns[1];
    ASSERT_EQ(text.path_in_schema, std::vector<std::string>{"text"});
    if (static_cast<uint64_t>(text.Start()) < footer->tail_offset) {
      want += static_cast<uint64_t>(text.total_compressed_size);
    }
    id_bytes += static_cast<uint64_t>(rg.columns[0].total_compressed_size);
  }
  const StorageCounters c = counting.counters();
  EXPECT_EQ(c.bytes_read, want);
  EXPECT_LE(c.bytes_read, size - id_bytes + kParquetTailRead);
  EXPECT_EQ((*reader)->stats().bytes_in, c.bytes_read);

  // A file smaller than the tail read costs one read of its bytes.
  const std::string small = TestdataDir() + "/hw_snappy.parquet";
  CountingStorage counting_small(local);
  auto small_reader =
      OpenDocumentReader(counting_small, InputRange{small, 0, kToEnd}, ParquetOptions());
  ASSERT_TRUE(small_reader.ok());
  ASSERT_TRUE(ReadAll(**small_reader).ok());
  EXPECT_EQ(counting_small.counters().bytes_read, ReadFile(small).size());
  EXPECT_EQ(counting_small.counters().reads, 2u);  // the Stat and the tail read
}

TEST(ParquetReader, RangesOfRowGroupsCoverTheFileOnceInOrder) {
  for (const char* name : {"pw_many_row_groups.parquet", "hw_many_row_groups.parquet",
                           "pw_v1_snappy.parquet", "pw_struct.parquet"}) {
    SCOPED_TRACE(name);
    const std::string path = TestdataDir() + "/" + name;
    const std::string field = std::string(name) == "pw_struct.parquet" ? "meta.body" : "text";
    auto whole = ReadPath(path, ParquetOptions(field));
    ASSERT_TRUE(whole.ok()) << whole.status().ToString();
    const uint64_t size = ReadFile(path).size();
    auto footer = ReadParquetFooter(**StorageFor(path), path, size);
    ASSERT_TRUE(footer.ok());
    for (uint64_t task_size : {uint64_t{1}, uint64_t{2000}, uint64_t{10000}, size}) {
      const auto ranges = ParquetTaskRanges(*footer, task_size);
      ASSERT_FALSE(ranges.empty());
      EXPECT_EQ(ranges.front().first, 0u);
      EXPECT_EQ(ranges.back().second, size);
      if (task_size == 1) {
        EXPECT_EQ(ranges.size(), footer->meta.row_groups.size());
      }
      if (task_size == size) {
        EXPECT_EQ(ranges.size(), 1u);
      }
      std::vector<Document> joined;
      for (size_t i = 0; i < ranges.size(); ++i) {
        if (i > 0) {
          EXPECT_EQ(ranges[i].first, ranges[i - 1].second);
        }
        auto reader = Open(path, ParquetOptions(field), ranges[i].first, ranges[i].second);
        ASSERT_TRUE(reader.ok()) << reader.status().ToString();
        auto docs = ReadAll(**reader);
        ASSERT_TRUE(docs.ok()) << docs.status().ToString();
        joined.insert(joined.end(), docs->begin(), docs->end());
      }
      ASSERT_EQ(joined.size(), whole->size());
      EXPECT_EQ(Digest(joined), Digest(*whole));
    }
  }
}

TEST(ParquetReader, FootersOfManyFilesReadInParallelKeepTheirOrder) {
  TempDir dir;
  std::vector<ObjectInfo> objects;
  const nlohmann::json manifest = Manifest();
  for (const auto& f : manifest["files"]) {
    const std::string path = TestdataDir() + "/" + f["name"].get<std::string>();
    objects.push_back({path, ReadFile(path).size(), ""});
  }
  const std::string bad = dir.Write("bad.parquet", "not parquet at all");
  objects.insert(objects.begin() + 3, ObjectInfo{bad, 18, ""});
  const auto footers = ReadParquetFooters(objects, 4);
  ASSERT_EQ(footers.size(), objects.size());
  for (size_t i = 0; i < objects.size(); ++i) {
    SCOPED_TRACE(objects[i].url);
    if (i == 3) {
      ASSERT_FALSE(footers[i].ok());
      EXPECT_THAT(footers[i].status().message(), HasSubstr(bad + ": not a Parquet file"));
      continue;
    }
    ASSERT_TRUE(footers[i].ok()) << footers[i].status().ToString();
    EXPECT_EQ(footers[i]->file_size, objects[i].size);
    EXPECT_TRUE(footers[i]->tail.empty());
    auto one = ReadParquetFooter(**StorageFor(objects[i].url), objects[i].url, objects[i].size);
    ASSERT_TRUE(one.ok());
    EXPECT_EQ(footers[i]->meta.num_rows, one->meta.num_rows);
  }
}

TEST(ParquetReader, ColumnErrorsListTheFilesColumns) {
  const std::string path = TestdataDir() + "/pw_struct.parquet";
  auto missing = ReadPath(path, ParquetOptions("body"));
  ASSERT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr(path + ": no column \"body\""));
  EXPECT_THAT(missing.status().message(),
              HasSubstr("id (INT64), meta.lang (BYTE_ARRAY string), meta.body (BYTE_ARRAY "
                        "string), url (BYTE_ARRAY string)"));
  auto group = ReadPath(path, ParquetOptions("meta"));
  ASSERT_FALSE(group.ok());
  EXPECT_THAT(group.status().message(), HasSubstr("is a group (struct)"));
  auto number = ReadPath(path, ParquetOptions("id"));
  ASSERT_FALSE(number.ok());
  EXPECT_THAT(number.status().message(), HasSubstr("column \"id\" is INT64, not a string"));
  auto bad_path = ReadPath(path, ParquetOptions("meta..body"));
  EXPECT_FALSE(bad_path.ok());
}

TEST(ParquetReader, NotParquetAndTruncatedFilesAreClearErrors) {
  TempDir dir;
  const std::string good = ReadFile(TestdataDir() + "/pw_v1_snappy.parquet");
  struct Case {
    std::string name, data, want;
  } cases[] = {
      {"empty.parquet", "", "too small for a Parquet file"},
      {"jsonl.parquet", "{\"text\": \"a jsonl file named .parquet\"}\n", "not a Parquet file"},
      {"cut.parquet", good.substr(0, good.size() - 100), "not a Parquet file"},
      {"badlen.parquet",
       good.substr(0, good.size() - 8) + std::string("\xff\xff\xff\x0f", 4) + "PAR1",
       "corrupt Parquet footer length"},
      {"badfooter.parquet",
       good.substr(0, good.size() - 8 - 200) + std::string(200, '\xee') +
           good.substr(good.size() - 8),
       "corrupt footer"},
      // The footer is intact but the data before it is gone: the chunks point past it.
      {"headless.parquet", "PAR1" + good.substr(good.size() / 2), "row group 0 column text"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = dir.Write(c.name, c.data);
    auto docs = ReadPath(path, ParquetOptions());
    ASSERT_FALSE(docs.ok());
    EXPECT_THAT(docs.status().message(), HasSubstr(path));
    EXPECT_THAT(docs.status().message(), HasSubstr(c.want));
  }
}

TEST(ParquetReader, CorruptPageNamesRowGroupColumnAndPageOrIsSkipped) {
  // Overwrite the middle of the text column's first chunk (a SNAPPY file without dictionary).
  const std::string src = TestdataDir() + "/pw_v1_plain.parquet";
  std::string data = ReadFile(src);
  auto footer = ReadParquetFooter(**StorageFor(src), src, data.size());
  ASSERT_TRUE(footer.ok());
  const auto& cc = footer->meta.row_groups[0].columns[1];
  ASSERT_EQ(cc.path_in_schema, std::vector<std::string>{"text"});
  // Damage the body of a page in the middle (not its header): past the first 200 bytes.
  const uint64_t at = static_cast<uint64_t>(cc.Start()) + 300;
  for (uint64_t i = at; i < at + 40; ++i) data[i] = static_cast<char>(0x5a);
  TempDir dir;
  const std::string path = dir.Write("corrupt.parquet", data);
  auto docs = ReadPath(path, ParquetOptions());
  ASSERT_FALSE(docs.ok());
  EXPECT_THAT(docs.status().message(), HasSubstr(path + " row group 0 column text"));
  EXPECT_THAT(docs.status().message(), HasSubstr("page at byte"));

  ReaderOptions skip = ParquetOptions();
  skip.skip_bad_records = true;
  auto reader = Open(path, skip);
  ASSERT_TRUE(reader.ok());
  auto skipped = ReadAll(**reader);
  // Either the damaged page is skipped (its rows counted), or the damage hit a page header,
  // which is structural and stays an error.
  if (skipped.ok()) {
    const auto& stats = (*reader)->stats();
    EXPECT_GT(stats.skipped_records, 0u);
    EXPECT_EQ(stats.documents + stats.empty_documents + stats.skipped_records,
              static_cast<uint64_t>(footer->meta.num_rows));
  } else {
    EXPECT_THAT(skipped.status().message(), HasSubstr("row group 0 column text"));
  }
}

// ---------------------------------------------------------------------------------------------
// Hand-built files: a minimal Thrift compact writer and one BYTE_ARRAY column.

class ThriftOut {
 public:
  void Varint(uint64_t v) {
    while (v >= 0x80) {
      out.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out.push_back(static_cast<char>(v));
  }
  void Zigzag(int64_t v) {
    Varint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
  }
  void Field(int16_t id, uint8_t type) {
    const int delta = id - last_.back();
    if (delta > 0 && delta <= 15) {
      out.push_back(static_cast<char>((delta << 4) | type));
    } else {
      out.push_back(static_cast<char>(type));
      Zigzag(id);
    }
    last_.back() = id;
  }
  void I32(int16_t id, int64_t v) {
    Field(id, 5);
    Zigzag(v);
  }
  void I64(int16_t id, int64_t v) {
    Field(id, 6);
    Zigzag(v);
  }
  void Str(int16_t id, std::string_view s) {
    Field(id, 8);
    Varint(s.size());
    out += s;
  }
  void BeginStruct(int16_t id) {
    Field(id, 12);
    last_.push_back(0);
  }
  void BeginListElementStruct() { last_.push_back(0); }
  void End() {
    out.push_back(0);
    last_.pop_back();
  }
  void ListHeader(int16_t id, uint8_t elem_type, size_t n) {
    Field(id, 9);
    if (n < 15) {
      out.push_back(static_cast<char>((n << 4) | elem_type));
    } else {
      out.push_back(static_cast<char>(0xf0 | elem_type));
      Varint(n);
    }
  }
  std::string out;

 private:
  std::vector<int16_t> last_{0};
};

std::string Plain(const std::vector<std::string>& values) {
  std::string out;
  for (const std::string& v : values) {
    const uint32_t n = static_cast<uint32_t>(v.size());
    out.append(reinterpret_cast<const char*>(&n), 4);
    out += v;
  }
  return out;
}

struct Page {
  int32_t type;  // 0 data v1, 2 dictionary
  int32_t encoding;
  int32_t num_values;
  std::string body;           // uncompressed body (v1: no levels; the column is REQUIRED)
  int32_t unknown_field = 0;  // if non-zero, an extra field id written in the header
};

std::string PageHeaderBytes(const Page& p) {
  ThriftOut t;
  t.I32(1, p.type);
  t.I32(2, static_cast<int64_t>(p.body.size()));
  t.I32(3, static_cast<int64_t>(p.body.size()));
  if (p.unknown_field != 0) {
    // A field from a future format version: a struct with a list and a string in it.
    t.BeginStruct(static_cast<int16_t>(p.unknown_field));
    t.Str(1, "future");
    t.ListHeader(2, 5, 3);
    t.Zigzag(1);
    t.Zigzag(2);
    t.Zigzag(3);
    t.End();
  }
  if (p.type == 2) {
    t.BeginStruct(7);
    t.I32(1, p.num_values);
    t.I32(2, p.encoding);
    t.End();
  } else {
    t.BeginStruct(5);
    t.I32(1, p.num_values);
    t.I32(2, p.encoding);
    t.I32(3, 3);
    t.I32(4, 3);
    t.End();
  }
  t.out.push_back(0);
  return t.out;
}

// A file with one REQUIRED BYTE_ARRAY column "text" and one row group of `pages`.
std::string BuildFile(const std::vector<Page>& pages, int32_t codec = 0) {
  std::string file = "PAR1";
  const int64_t chunk_start = static_cast<int64_t>(file.size());
  int64_t rows = 0;
  bool dict = false;
  for (const Page& p : pages) {
    file += PageHeaderBytes(p) + p.body;
    if (p.type == 2) {
      dict = true;
    } else {
      rows += p.num_values;
    }
  }
  const int64_t chunk_size = static_cast<int64_t>(file.size()) - chunk_start;
  ThriftOut t;
  t.I32(1, 2);
  t.ListHeader(2, 12, 2);
  t.BeginListElementStruct();  // root
  t.Str(4, "schema");
  t.I32(5, 1);
  t.End();
  t.BeginListElementStruct();
  t.I32(1, 6);
  t.I32(3, 0);
  t.Str(4, "text");
  t.I32(6, 0);  // UTF8
  t.End();
  t.I64(3, rows);
  t.ListHeader(4, 12, 1);
  t.BeginListElementStruct();  // RowGroup
  t.ListHeader(1, 12, 1);
  t.BeginListElementStruct();  // ColumnChunk
  t.I64(2, chunk_start);
  t.BeginStruct(3);  // ColumnMetaData
  t.I32(1, 6);
  t.ListHeader(2, 5, 1);
  t.Zigzag(0);
  t.ListHeader(3, 8, 1);
  t.Varint(4);
  t.out += "text";
  t.I32(4, codec);
  t.I64(5, rows);
  t.I64(6, chunk_size);
  t.I64(7, chunk_size);
  int64_t data_offset = chunk_start;
  if (dict)
    data_offset += static_cast<int64_t>(PageHeaderBytes(pages[0]).size() + pages[0].body.size());
  t.I64(9, data_offset);
  if (dict) t.I64(11, chunk_start);
  t.End();
  t.End();
  t.I64(2, chunk_size);
  t.I64(3, rows);
  t.End();
  t.Str(6, "tokenmill test");
  t.out.push_back(0);
  file += t.out;
  const uint32_t len = static_cast<uint32_t>(t.out.size());
  file.append(reinterpret_cast<const char*>(&len), 4);
  file += "PAR1";
  return file;
}

// RLE_DICTIONARY indices: bit width, then one bit-packed run of ceil(n/8) groups.
std::string DictIndices(const std::vector<uint32_t>& idx, int width) {
  std::string out(1, static_cast<char>(width));
  const size_t groups = (idx.size() + 7) / 8;
  out.push_back(static_cast<char>((groups << 1) | 1));
  std::string bits(groups * static_cast<size_t>(width), '\0');
  for (size_t i = 0; i < idx.size(); ++i) {
    for (int b = 0; b < width; ++b) {
      if ((idx[i] >> b) & 1) {
        const size_t bit = i * static_cast<size_t>(width) + static_cast<size_t>(b);
        bits[bit / 8] = static_cast<char>(bits[bit / 8] | (1 << (bit % 8)));
      }
    }
  }
  return out + bits;
}

TEST(ParquetReader, DictionaryFallsBackToPlainInsideAChunk) {
  // The layout pyarrow writes for long, mostly unique texts: a dictionary page, dictionary
  // pages of indices, then PLAIN pages once the dictionary is full; and a dictionary-encoded
  // page after the PLAIN one (the encoding is per page). Unknown fields are skipped.
  const std::vector<std::string> dict = {"alpha", "beta", "γάμμα"};
  std::vector<Page> pages = {
      {2, 0, 3, Plain(dict), 0},
      {0, 8, 5, DictIndices({0, 1, 2, 1, 0}, 2), 14},
      {0, 0, 2, Plain({"plain one", "plain two"}), 0},
      // The deprecated PLAIN_DICTIONARY enum (format 1.0 writers) means the same.
      {0, 2, 2, DictIndices({2, 2}, 2), 0},
  };
  TempDir dir;
  const std::string path = dir.Write("fallback.parquet", BuildFile(pages));
  auto docs = ReadPath(path, ParquetOptions());
  ASSERT_TRUE(docs.ok()) << docs.status().ToString();
  std::vector<std::string> texts;
  for (const auto& d : *docs) texts.push_back(d.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"alpha", "beta", "γάμμα", "beta", "alpha", "plain one",
                                             "plain two", "γάμμα", "γάμμα"}));
}

TEST(ParquetReader, UnsupportedCodecAndEncodingAreNamed) {
  TempDir dir;
  const std::string lzo =
      dir.Write("lzo.parquet", BuildFile({{0, 0, 1, Plain({"x"}), 0}}, /*codec=*/3));
  auto a = ReadPath(lzo, ParquetOptions());
  ASSERT_FALSE(a.ok());
  EXPECT_THAT(a.status().message(), HasSubstr(lzo + " row group 0 column text"));
  EXPECT_THAT(a.status().message(), HasSubstr("compression codec LZO is not supported"));

  const std::string bss = dir.Write("bss.parquet", BuildFile({{0, 9, 1, Plain({"x"}), 0}}));
  ReaderOptions skip = ParquetOptions();
  skip.skip_bad_records = true;  // an unsupported encoding is never skipped silently
  auto reader = Open(bss, skip);
  ASSERT_TRUE(reader.ok());
  auto b = ReadAll(**reader);
  ASSERT_FALSE(b.ok());
  EXPECT_THAT(b.status().message(), HasSubstr(bss + " row group 0 column text"));
  EXPECT_THAT(b.status().message(), HasSubstr("BYTE_STREAM_SPLIT is not supported"));
}

TEST(ParquetReader, ValueCountMismatchIsDataLoss) {
  // The page holds fewer values than the row group's rows claim... built by hand: a page of
  // 2 values whose body holds only one.
  TempDir dir;
  const std::string path = dir.Write("short.parquet", BuildFile({{0, 0, 2, Plain({"x"}), 0}}));
  auto docs = ReadPath(path, ParquetOptions());
  ASSERT_FALSE(docs.ok());
  EXPECT_THAT(docs.status().message(), HasSubstr("PLAIN values end early"));
}

TEST(RleDecoder, RunsAndBitPacked) {
  // RLE run of 3 x 5 (width 3), then a bit-packed group of 8 values 0..7.
  std::string data;
  data.push_back(static_cast<char>(3 << 1));
  data.push_back(5);
  data.push_back(static_cast<char>((1 << 1) | 1));
  // 0..7 at 3 bits, LSB first: 0b10001000, 0b11000110, 0b11111010.
  data += std::string("\x88\xc6\xfa", 3);
  parquet::RleDecoder d(reinterpret_cast<const uint8_t*>(data.data()), data.size(), 3);
  std::vector<uint32_t> got;
  uint32_t v = 0;
  while (d.Next(&v)) got.push_back(v);
  EXPECT_FALSE(d.corrupt());
  EXPECT_EQ(got, (std::vector<uint32_t>{5, 5, 5, 0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(DeltaBinaryPacked, DecodesAndRejectsWrongCounts) {
  // block 128, 4 miniblocks, 5 values, first 7; min delta -2 (zigzag 3), widths 2,0,0,0,
  // deltas (relative to min) 0,1,2,3 -> values 7,5,4,4,5.
  std::string data;
  for (int b : {0x80, 0x01, 4, 5, 14, 3, 2, 0, 0, 0}) data.push_back(static_cast<char>(b));
  std::string mini(32 * 2 / 8, '\0');
  mini[0] = static_cast<char>(0b11100100);
  data += mini;
  std::vector<int64_t> out;
  size_t used = 0;
  ASSERT_TRUE(parquet::DecodeDeltaBinaryPacked(data, 5, &out, &used).ok());
  EXPECT_EQ(out, (std::vector<int64_t>{7, 5, 4, 4, 5}));
  EXPECT_EQ(used, data.size());
  EXPECT_FALSE(parquet::DecodeDeltaBinaryPacked(data, 6, &out, &used).ok());
  EXPECT_FALSE(parquet::DecodeDeltaBinaryPacked(data.substr(0, 12), 5, &out, &used).ok());
}

}  // namespace
}  // namespace tokenmill
