// storage_tool: a small test driver for the Storage backends, used by the interoperability test
// with the aws CLI (s3_aws_cli_interop_test.sh). Not installed.
//
//   storage_tool put URL LOCAL_FILE     WriteFile
//   storage_tool get URL LOCAL_FILE     OpenRead, streamed to the file
//   storage_tool cat URL                Read, to stdout
//   storage_tool ls PREFIX              List: "<size> <url>" lines
//   storage_tool create URL TEXT        CreateIfAbsent, prints the generation
//   storage_tool version URL            ReadVersioned, prints the generation
//   storage_tool cas URL TEXT GEN       CompareAndSwap from generation GEN, prints the new one
//   storage_tool rm URL                 Delete
// create and cas exit 3 when the condition fails (the key is taken, the generation moved).
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tokenmill/storage/storage.h"

namespace tokenmill {
namespace {

constexpr int kLost = 3;  // a conditional write whose condition did not hold

int Fail(const Status& s) {
  std::fprintf(stderr, "storage_tool: %s\n", s.ToString().c_str());
  return 1;
}

int Run(const std::vector<std::string>& args) {
  if (args.size() < 2) {
    std::fprintf(stderr, "usage: storage_tool put|get|cat|ls|create|version|cas|rm URL [ARG...]\n");
    return 2;
  }
  const std::string& cmd = args[0];
  const std::string& url = args[1];
  StatusOr<Storage*> storage = StorageFor(url);
  if (!storage.ok()) return Fail(storage.status());
  Storage* s = *storage;
  if (cmd == "put" && args.size() == 3) {
    Status st = s->WriteFile(url, args[2]);
    return st.ok() ? 0 : Fail(st);
  }
  if (cmd == "get" && args.size() == 3) {
    auto stream = s->OpenRead(url);
    if (!stream.ok()) return Fail(stream.status());
    FILE* out = std::fopen(args[2].c_str(), "wb");
    if (out == nullptr) return Fail(Status::IoError("cannot create " + args[2]));
    std::vector<char> buf(1 << 20);
    while (true) {
      StatusOr<size_t> n = (*stream)->Read(buf.data(), buf.size());
      if (!n.ok()) {
        std::fclose(out);
        return Fail(n.status());
      }
      if (*n == 0) break;
      std::fwrite(buf.data(), 1, *n, out);
    }
    return std::fclose(out) == 0 ? 0 : Fail(Status::IoError("cannot write " + args[2]));
  }
  if (cmd == "cat" && args.size() == 2) {
    StatusOr<std::string> data = s->Read(url);
    if (!data.ok()) return Fail(data.status());
    std::fwrite(data->data(), 1, data->size(), stdout);
    return 0;
  }
  if (cmd == "ls" && args.size() == 2) {
    auto list = s->List(url);
    if (!list.ok()) return Fail(list.status());
    for (const auto& o : *list) std::printf("%llu %s\n", (unsigned long long)o.size, o.url.c_str());
    return 0;
  }
  if (cmd == "create" && args.size() == 3) {
    StatusOr<std::string> g = s->CreateIfAbsent(url, args[2]);
    if (!g.ok() && g.status().Is(StatusCode::kAlreadyExists)) return kLost;
    if (!g.ok()) return Fail(g.status());
    std::printf("%s\n", g->c_str());
    return 0;
  }
  if (cmd == "version" && args.size() == 2) {
    StatusOr<VersionedData> v = s->ReadVersioned(url);
    if (!v.ok()) return Fail(v.status());
    std::printf("%s\n", v->generation.c_str());
    return 0;
  }
  if (cmd == "cas" && args.size() == 4) {
    StatusOr<std::string> g = s->CompareAndSwap(url, args[2], args[3]);
    if (!g.ok() && g.status().Is(StatusCode::kFailedPrecondition)) return kLost;
    if (!g.ok()) return Fail(g.status());
    std::printf("%s\n", g->c_str());
    return 0;
  }
  if (cmd == "rm" && args.size() == 2) {
    Status st = s->Delete(url);
    return st.ok() ? 0 : Fail(st);
  }
  std::fprintf(stderr, "storage_tool: bad command line\n");
  return 2;
}

}  // namespace
}  // namespace tokenmill

int main(int argc, char** argv) {
  return tokenmill::Run(std::vector<std::string>(argv + 1, argv + argc));
}
