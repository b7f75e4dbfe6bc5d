// Storage request rates and throughput.
//
//   storage_bench [--dir DIR] [--s3 s3://bucket/prefix] [--ops N] [--mib M]
//   storage_bench --put LOCAL_FILE URL     one WriteFile, as a shard is published
//   storage_bench --get URL                one OpenRead to the end, as an input is read
//
// Local folder (DIR, default a fresh folder under /tmp): CreateIfAbsent, CompareAndSwap and
// ReadVersioned of small records (the job-store protocol's requests; each write fsyncs).
// S3 (--s3, or s3://$S3_BUCKET/bench if S3_BUCKET is set; settings from the AWS_* environment):
// the same small requests, then a WriteFile of M MiB (multipart above 64 MiB) and an OpenRead of
// it. One thread; every figure is ops/s or MB/s (MB = 10^6 bytes) over the whole run.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tokenmill/storage/storage.h"

namespace {

using Clock = std::chrono::steady_clock;
using tokenmill::Storage;

[[noreturn]] void Die(const std::string& m) {
  std::fprintf(stderr, "storage_bench: %s\n", m.c_str());
  std::exit(1);
}

double Seconds(Clock::time_point a) {
  return std::chrono::duration<double>(Clock::now() - a).count();
}

void SmallRequests(const std::string& base, int ops) {
  tokenmill::StatusOr<Storage*> st = tokenmill::StorageFor(base);
  if (!st.ok()) Die(st.status().ToString());
  Storage* s = *st;
  auto t = Clock::now();
  std::vector<std::string> gens;
  for (int i = 0; i < ops; ++i) {
    auto g = s->CreateIfAbsent(tokenmill::JoinPath(base, "lease/" + std::to_string(i)),
                               "holder bench attempt 1 counter " + std::to_string(i));
    if (!g.ok()) Die(g.status().ToString());
    gens.push_back(*g);
  }
  double create = ops / Seconds(t);
  t = Clock::now();
  for (int i = 0; i < ops; ++i) {
    auto g =
        s->CompareAndSwap(tokenmill::JoinPath(base, "lease/" + std::to_string(i)),
                          "holder bench attempt 1 counter " + std::to_string(i + ops), gens[i]);
    if (!g.ok()) Die(g.status().ToString());
  }
  double cas = ops / Seconds(t);
  t = Clock::now();
  for (int i = 0; i < ops; ++i) {
    auto v = s->ReadVersioned(tokenmill::JoinPath(base, "lease/" + std::to_string(i)));
    if (!v.ok()) Die(v.status().ToString());
  }
  double read = ops / Seconds(t);
  t = Clock::now();
  auto l = s->List(tokenmill::JoinPath(base, "lease/"));
  if (!l.ok() || l->size() != static_cast<size_t>(ops)) Die("list failed");
  double list_ms = Seconds(t) * 1000;
  for (int i = 0; i < ops; ++i) {
    (void)s->Delete(tokenmill::JoinPath(base, "lease/" + std::to_string(i)));
  }
  std::printf(
      "%s: CreateIfAbsent %.0f/s, CompareAndSwap %.0f/s, ReadVersioned %.0f/s, "
      "List of %d %.1f ms\n",
      base.c_str(), create, cas, read, ops, list_ms);
}

void BulkTransfer(const std::string& base, int mib) {
  Storage* s = *tokenmill::StorageFor(base);
  std::string local =
      (std::filesystem::temp_directory_path() / ("storage_bench." + std::to_string(::getpid())))
          .string();
  {
    std::ofstream out(local, std::ios::binary);
    std::string block(1 << 20, '\0');
    for (int i = 0; i < mib; ++i) {
      for (size_t j = 0; j < block.size(); j += 8) block[j] = static_cast<char>(i + j);
      out.write(block.data(), static_cast<std::streamsize>(block.size()));
    }
  }
  std::string url = tokenmill::JoinPath(base, "bulk.bin");
  double bytes = static_cast<double>(mib) * (1 << 20);
  auto t = Clock::now();
  tokenmill::Status w = s->WriteFile(url, local);
  double up = bytes / 1e6 / Seconds(t);
  std::filesystem::remove(local);
  if (!w.ok()) Die(w.ToString());
  t = Clock::now();
  auto stream = s->OpenRead(url);
  if (!stream.ok()) Die(stream.status().ToString());
  std::vector<char> buf(1 << 20);
  uint64_t total = 0;
  while (true) {
    auto n = (*stream)->Read(buf.data(), buf.size());
    if (!n.ok()) Die(n.status().ToString());
    if (*n == 0) break;
    total += *n;
  }
  double down = bytes / 1e6 / Seconds(t);
  if (total != static_cast<uint64_t>(bytes)) Die("short read");
  (void)s->Delete(url);
  std::printf("%s: WriteFile %d MiB %.0f MB/s, OpenRead %.0f MB/s\n", base.c_str(), mib, up, down);
}

// --put / --get: one transfer through the storage layer, timed, printed as one JSON line.
int Transfer(const std::string& mode, const std::string& a, const std::string& b) {
  bool put = mode == "--put";
  std::string url = put ? b : a;
  tokenmill::StatusOr<Storage*> st = tokenmill::StorageFor(url);
  if (!st.ok()) Die(st.status().ToString());
  Storage* s = *st;
  uint64_t bytes = 0;
  auto t = Clock::now();
  if (put) {
    tokenmill::Status w = s->WriteFile(url, a);
    if (!w.ok()) Die(w.ToString());
    bytes = std::filesystem::file_size(a);
  } else {
    auto stream = s->OpenRead(url);
    if (!stream.ok()) Die(stream.status().ToString());
    std::vector<char> buf(1 << 20);
    while (true) {
      auto n = (*stream)->Read(buf.data(), buf.size());
      if (!n.ok()) Die(n.status().ToString());
      if (*n == 0) break;
      bytes += *n;
    }
  }
  double secs = Seconds(t);
  tokenmill::StorageCounters c = s->counters();
  std::printf(
      "{\"op\":\"%s\",\"url\":\"%s\",\"bytes\":%llu,\"seconds\":%.3f,\"MB_per_s\":%.1f,"
      "\"retries\":%llu}\n",
      put ? "put" : "get", url.c_str(), static_cast<unsigned long long>(bytes), secs,
      static_cast<double>(bytes) / 1e6 / secs, static_cast<unsigned long long>(c.retries));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "--put") return Transfer(argv[1], argv[2], argv[3]);
  if (argc == 3 && std::string(argv[1]) == "--get") return Transfer(argv[1], argv[2], "");
  std::string dir;
  std::string s3;
  int ops = 500;
  int mib = 256;
  if (const char* b = std::getenv("S3_BUCKET")) s3 = std::string("s3://") + b + "/bench";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) Die("missing value for " + a);
    if (a == "--dir") {
      dir = argv[++i];
    } else if (a == "--s3") {
      s3 = argv[++i];
    } else if (a == "--ops") {
      ops = std::atoi(argv[++i]);
    } else if (a == "--mib") {
      mib = std::atoi(argv[++i]);
    } else {
      Die("unknown flag " + a);
    }
  }
  bool own_dir = dir.empty();
  if (own_dir) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "storage_bench_XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) Die("cannot create a folder in /tmp");
    dir = tmpl;
  }
  SmallRequests(dir, ops);
  BulkTransfer(dir, mib);
  if (own_dir) std::filesystem::remove_all(dir);
  if (!s3.empty()) {
    SmallRequests(s3, ops);
    BulkTransfer(s3, mib);
  }
  return 0;
}
