// tokenmill inspect SHARD... [--tokenizer PATH] [--limit N] [--json]
//
// Reads shards of any format back, verifying every CRC, header and size; prints counts and the
// first examples decoded (as tokens with --tokenizer, else as ids). Corruption exits 1 naming the
// file and the byte offset.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "tokenmill/cli/command.h"
#include "tokenmill/formats/shard_reader.h"
#include "tokenmill/storage/storage.h"
#include "tokenmill/tokenizer/tokenizer.h"

namespace tokenmill::cli {
namespace {

struct InspectArgs {
  std::vector<std::string> shards;
  std::string tokenizer;
  std::string encoding;
  int limit = 3;
  bool json = false;
};

StatusOr<ByteSource> OpenThroughStorage(const std::string& location) {
  TM_ASSIGN_OR_RETURN(Storage * storage, StorageFor(location));
  TM_ASSIGN_OR_RETURN(ObjectInfo info, storage->Stat(location));
  ByteSource source;
  source.name = location;
  source.size = info.size;
  source.read_at = [storage, location](uint64_t offset, uint64_t length) {
    return storage->Read(location, offset, length);
  };
  return source;
}

std::string Render(const Example& e, const Tokenizer* tok) {
  const size_t n = e.num_real_tokens ? e.num_real_tokens : e.tokens.size();
  std::string out;
  if (tok != nullptr && tok->kind() != TokenizerKind::kWordPiece) {
    std::vector<uint32_t> ids(e.tokens.begin(), e.tokens.begin() + n);
    nlohmann::json s = tok->Decode(ids);
    return s.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  for (size_t i = 0; i < n; ++i) {
    if (i) out += ' ';
    if (!e.segment_ids.empty() && i > 0 && e.segment_ids[i] != e.segment_ids[i - 1]) out += "| ";
    if (tok != nullptr) {
      std::string_view t = tok->IdToToken(e.tokens[i]);
      out += t.empty() ? "<" + std::to_string(e.tokens[i]) + ">" : std::string(t);
    } else {
      out += std::to_string(e.tokens[i]);
    }
  }
  return out;
}

int RunInspect(const InspectArgs& args) {
  std::unique_ptr<Tokenizer> tokenizer;
  if (!args.tokenizer.empty()) {
    TokenizerOptions o;
    o.path = args.tokenizer;
    if (!args.encoding.empty()) o.encoding = args.encoding;
    auto t = LoadTokenizerFromStorage(o);
    if (!t.ok()) return ReportError(t.status());
    tokenizer = std::move(t).value();
  }
  ShardReaderOptions options;
  if (tokenizer) {
    options.vocab_size = tokenizer->vocab_size();
    options.eod_id = tokenizer->specials().eod;
  }
  uint64_t total_records = 0, total_tokens = 0, total_real = 0;
  for (const auto& shard : args.shards) {
    auto reader = OpenShard(shard, OpenThroughStorage, options);
    if (!reader.ok()) return ReportError(reader.status());
    const ShardInfo& info = (*reader)->info();
    if (!args.json) {
      std::printf("%s: %s, %s tokens, %llu bytes\n", shard.c_str(),
                  std::string(OutputFormatName(info.format)).c_str(), info.dtype.c_str(),
                  static_cast<unsigned long long>(info.bytes));
    }
    Example e;
    int shown = 0;
    for (;;) {
      auto more = (*reader)->Next(&e);
      if (!more.ok()) return ReportError(more.status());
      if (!*more) break;
      if (!args.json && shown < args.limit) {
        std::printf("  #%d (%u tokens): %s\n", shown, e.num_real_tokens,
                    Render(e, tokenizer.get()).c_str());
        ++shown;
      }
    }
    const ShardCounts& c = (*reader)->counts();
    total_records += c.records;
    total_tokens += c.tokens;
    total_real += c.real_tokens;
    if (args.json) {
      nlohmann::json j = {{"shard", shard},
                          {"format", OutputFormatName(info.format)},
                          {"dtype", info.dtype},
                          {"bytes", info.bytes},
                          {"records", c.records},
                          {"tokens", c.tokens},
                          {"real_tokens", c.real_tokens}};
      std::printf("%s\n", j.dump().c_str());
    } else {
      std::printf("  ok: %llu records, %llu tokens (%llu without padding), every check passed\n",
                  static_cast<unsigned long long>(c.records),
                  static_cast<unsigned long long>(c.tokens),
                  static_cast<unsigned long long>(c.real_tokens));
    }
  }
  if (args.json) {
    nlohmann::json j = {{"shards", args.shards.size()},
                        {"records", total_records},
                        {"tokens", total_tokens},
                        {"real_tokens", total_real}};
    std::printf("%s\n", j.dump().c_str());
  } else if (args.shards.size() > 1) {
    std::printf("total: %zu shards, %llu records, %llu tokens\n", args.shards.size(),
                static_cast<unsigned long long>(total_records),
                static_cast<unsigned long long>(total_tokens));
  }
  return kExitOk;
}

}  // namespace

void AddInspectCommand(CLI::App& app, CommandAction* action) {
  auto args = std::make_shared<InspectArgs>();
  CLI::App* cmd = app.add_subcommand(
      "inspect", "Verify shards (CRCs, headers, sizes) and print decoded examples");
  cmd->add_option("shards", args->shards, "TFRecord, Megatron (.idx/.bin/prefix) or llm.c files")
      ->required();
  cmd->add_option("--tokenizer", args->tokenizer, "decode ids to tokens with this tokenizer");
  cmd->add_option("--encoding", args->encoding, "tiktoken encoding of --tokenizer");
  cmd->add_option("--limit", args->limit, "examples printed per shard (default 3)");
  cmd->add_flag("--json", args->json, "one JSON object per shard, then one with the totals");
  cmd->callback([args, action] { *action = [args] { return RunInspect(*args); }; });
}

}  // namespace tokenmill::cli
