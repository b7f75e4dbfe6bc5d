#include "tokenmill/formats/tfrecord.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tokenmill/base/crc32c.h"
#include "tokenmill/base/endian.h"
#include "tokenmill/formats/formats_testing.h"
#include "tokenmill/formats/tf_example.h"

namespace tokenmill {
namespace {

std::vector<std::string> ReadRecords(std::string_view file, Status* status) {
  ByteSource source = MemorySource("mem.tfrecord", file);
  TfRecordReader reader(source);
  std::vector<std::string> out;
  std::string_view data;
  while (true) {
    StatusOr<bool> got = reader.Next(&data);
    if (!got.ok()) {
      *status = got.status();
      return out;
    }
    if (!*got) break;
    out.emplace_back(data);
  }
  *status = Status::Ok();
  return out;
}

TEST(TfRecord, ExactBytesOfATinyRecord) {
  // The payload is tf_example_test's tiny Example (69 bytes). Length 69 = 45 00..00; the CRC-32C
  // of those 8 bytes is 0xfe0986f2, masked 0xb068e6eb; the payload's CRC-32C is 0x8342b43d,
  // masked 0x0afdf15d. Computed apart with a bitwise CRC-32C (reflected polynomial 0x82f63b78,
  // checked on "123456789" = 0xe3069283) and mask = rotr15 + 0xa282ead8.
  Example e;
  e.tokens = {7, 300};
  e.input_mask = {1, 0};
  e.segment_ids = {0, 0};
  e.num_real_tokens = 1;
  std::string payload;
  EncodeTfExample(e, &payload);
  std::string record;
  AppendTfRecord(payload, &record);
  EXPECT_EQ(testing::Hex(record),
            "4500000000000000"
            "ebe668b0"
            "0a430a140a09696e7075745f69647312071a050a0307ac020a140a0a696e7075745f6d61736b1206"
            "1a040a0201000a150a0b7365676d656e745f69647312061a040a020000"
            "5df1fd0a");
}

TEST(TfRecord, ExactBytesOfAnEmptyRecord) {
  std::string record;
  AppendTfRecord("", &record);
  // CRC-32C of no bytes is 0, masked 0xa282ead8.
  EXPECT_EQ(testing::Hex(record),
            "0000000000000000"
            "29039807"
            "d8ea82a2");
}

TEST(TfRecord, RoundTripIncludingRecordsLargerThanTheReadBuffer) {
  std::vector<std::string> records = {"", "a", std::string(3 << 20, 'x'), "tail"};
  for (int i = 0; i < 100; ++i) records.push_back(std::string(i * 37 % 1000, char('a' + i % 26)));
  std::string file;
  for (const auto& r : records) AppendTfRecord(r, &file);
  Status status;
  EXPECT_EQ(ReadRecords(file, &status), records);
  EXPECT_TRUE(status.ok()) << status.ToString();
}

TEST(TfRecord, EveryFlippedBitIsDetectedWithItsRecordOffset) {
  std::string file;
  AppendTfRecord("first record", &file);
  const size_t second = file.size();
  AppendTfRecord("second", &file);
  for (size_t i = 0; i < file.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = file;
      bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
      Status status;
      ReadRecords(bad, &status);
      ASSERT_TRUE(status.Is(StatusCode::kDataLoss)) << "byte " << i << " bit " << bit;
      const std::string offset = "at byte offset " + std::to_string(i < second ? 0 : second);
      EXPECT_NE(status.message().find(offset), std::string::npos) << status.message();
      EXPECT_NE(status.message().find("mem.tfrecord"), std::string::npos);
    }
  }
}

TEST(TfRecord, TruncationIsDetectedExceptAtRecordBoundaries) {
  std::string file;
  AppendTfRecord("first record", &file);
  const size_t boundary = file.size();
  AppendTfRecord("second", &file);
  for (size_t n = 0; n < file.size(); ++n) {
    Status status;
    std::vector<std::string> got = ReadRecords(std::string_view(file).substr(0, n), &status);
    if (n == 0 || n == boundary) {
      EXPECT_TRUE(status.ok()) << n;  // a shorter file of whole records
    } else {
      EXPECT_TRUE(status.Is(StatusCode::kDataLoss)) << n;
      EXPECT_EQ(got.size(), n < boundary ? 0u : 1u);
    }
  }
}

TEST(TfRecord, HugeLengthWithValidCrcIsAnErrorNotAnAllocation) {
  std::string file;
  AppendTfRecord(std::string(10, 'z'), &file);
  // Forge the length to 2^62 with a matching length CRC: the reader must refuse, not allocate.
  std::string length;
  PutFixedLE<uint64_t>(&length, 1ull << 62);
  std::string crc;
  PutFixedLE<uint32_t>(&crc, crc32c::Mask(crc32c::Value(length)));
  file.replace(0, 12, length + crc);
  Status status;
  ReadRecords(file, &status);
  EXPECT_TRUE(status.Is(StatusCode::kDataLoss));
  EXPECT_NE(status.message().find("runs past the end of the file"), std::string::npos)
      << status.message();
}

}  // namespace
}  // namespace tokenmill
