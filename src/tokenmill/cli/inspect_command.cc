// tokenmill inspect SHARD... [--tokenizer PATH] [--limit N] [--json]
//
// Reads shards of any format back, verifying every CRC, header and size; prints counts and the
// first examples decoded (as tokens with --tokenizer, else as ids). Corruption exits 1 naming the
// file and the byte offset. BERT examples show each masked position as {input:original} (input
// [MASK], the original itself or a random word) and their next sentence label; the counts add
// the masked LM and next sentence statistics.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>

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

// The sizes of the objects ShardsNamedBy has already asked for, so that a shard in a bucket is not
// asked for twice.
using KnownSizes = std::unordered_map<std::string, uint64_t>;

StatusOr<ByteSource> OpenThroughStorage(const std::string& location, const KnownSizes& known) {
  TM_ASSIGN_OR_RETURN(Storage * storage, StorageFor(location));
  ByteSource source;
  if (auto it = known.find(location); it != known.end()) {
    source.size = it->second;
  } else {
    TM_ASSIGN_OR_RETURN(ObjectInfo info, storage->Stat(location));
    source.size = info.size;
  }
  source.name = location;
  source.read_at = [storage, location](uint64_t offset, uint64_t length) {
    return storage->Read(location, offset, length);
  };
  return source;
}

// The shards one argument names: itself, or, for a job's output (its folder, local or a bucket
// prefix, or its manifest.json), every shard its manifest lists, a Megatron pair once (by its
// .bin). Only a missing object reads as "a folder" or "no manifest": any other error (a denied
// permission, a store that cannot be reached) is passed on as it is.
StatusOr<std::vector<std::string>> ShardsNamedBy(const std::string& arg, KnownSizes* known) {
  constexpr std::string_view kManifest = "manifest.json";
  TM_ASSIGN_OR_RETURN(Storage * storage, StorageFor(arg));
  std::string manifest;
  if (std::string_view(arg).ends_with(kManifest)) {
    manifest = arg;
  } else {
    if (IsUrl(arg) && !arg.ends_with('/')) {
      StatusOr<ObjectInfo> info = storage->Stat(arg);
      if (info.ok()) {
        (*known)[arg] = info->size;
        return std::vector<std::string>{arg};
      }
      if (!info.status().Is(StatusCode::kNotFound)) return info.status();
    } else if (!IsUrl(arg) && !std::filesystem::is_directory(arg)) {
      return std::vector<std::string>{arg};
    }
    manifest = JoinPath(arg, kManifest);
  }
  StatusOr<std::string> text = storage->Read(manifest);
  if (!text.ok()) {
    if (!text.status().Is(StatusCode::kNotFound) || manifest == arg) return text.status();
    return Status::InvalidArgument(
        arg + " is neither a shard nor the output of a finished job (no " + manifest +
        "): name its shards, e.g. " + JoinPath(arg, "part-000000-000.tfrecord"));
  }
  const nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("shards") || !j["shards"].is_array()) {
    return Status::InvalidArgument(manifest +
                                   " is not a tokenmill manifest (no \"shards\" list); name the "
                                   "shards to inspect instead");
  }
  const std::string folder = manifest.substr(0, manifest.size() - kManifest.size());
  std::vector<std::string> shards;
  for (const nlohmann::json& shard : j["shards"]) {
    if (!shard.is_object() || !shard.contains("name") || !shard["name"].is_string()) {
      return Status::InvalidArgument(manifest + ": a shard without a \"name\"");
    }
    const std::string name = shard["name"].get<std::string>();
    if (name.ends_with(".idx")) continue;  // its .bin opens the pair
    shards.push_back(folder + name);
  }
  if (shards.empty()) return Status::InvalidArgument(manifest + " lists no shards");
  return shards;
}

std::string Render(const Example& e, const Tokenizer* tok) {
  const size_t n = e.num_real_tokens ? e.num_real_tokens : e.tokens.size();
  std::string out;
  if (tok != nullptr && tok->kind() != TokenizerKind::kWordPiece) {
    std::vector<uint32_t> ids(e.tokens.begin(), e.tokens.begin() + n);
    nlohmann::json s = tok->Decode(ids);
    return s.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  auto token = [tok](uint32_t id) {
    if (tok == nullptr) return std::to_string(id);
    std::string_view t = tok->IdToToken(id);
    return t.empty() ? "<" + std::to_string(id) + ">" : std::string(t);
  };
  // BERT: the original id at each masked position.
  std::vector<std::optional<uint32_t>> original(n);
  size_t masked = 0;
  for (size_t k = 0; k < e.masked_lm_weights.size(); ++k) {
    if (e.masked_lm_weights[k] == 0.0f || e.masked_lm_positions[k] >= n) continue;
    original[e.masked_lm_positions[k]] = e.masked_lm_ids[k];
    ++masked;
  }
  for (size_t i = 0; i < n; ++i) {
    if (i) out += ' ';
    if (!e.segment_ids.empty() && i > 0 && e.segment_ids[i] != e.segment_ids[i - 1]) out += "| ";
    if (original[i].has_value()) {
      out += "{" + token(e.tokens[i]) + ":" + token(*original[i]) + "}";
    } else {
      out += token(e.tokens[i]);
    }
  }
  if (e.bert) {
    out += "  (" + std::to_string(masked) +
           " masked, next sentence: " + (e.next_sentence_label ? "random" : "actual") + ")";
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
  // BERT examples: masked positions (and how they were replaced), random next sentences.
  struct BertCounts {
    uint64_t examples = 0, masked = 0, as_mask = 0, as_original = 0, random_next = 0;
  };
  BertCounts total_bert;
  const bool has_mask = tokenizer != nullptr && tokenizer->specials().mask.has_value();
  const uint32_t mask_id = has_mask ? *tokenizer->specials().mask : 0;
  std::vector<std::string> shards;
  KnownSizes known;
  for (const std::string& arg : args.shards) {
    auto named = ShardsNamedBy(arg, &known);
    if (!named.ok()) return ReportError(named.status());
    shards.insert(shards.end(), named->begin(), named->end());
  }
  const SourceOpener open = [&known](const std::string& location) {
    return OpenThroughStorage(location, known);
  };
  for (const auto& shard : shards) {
    auto reader = OpenShard(shard, open, options);
    if (!reader.ok()) return ReportError(reader.status());
    const ShardInfo& info = (*reader)->info();
    if (!args.json) {
      std::printf("%s: %s, %s tokens, %llu bytes\n", shard.c_str(),
                  std::string(OutputFormatName(info.format)).c_str(), info.dtype.c_str(),
                  static_cast<unsigned long long>(info.bytes));
    }
    Example e;
    int shown = 0;
    BertCounts bert;
    for (;;) {
      auto more = (*reader)->Next(&e);
      if (!more.ok()) return ReportError(more.status());
      if (!*more) break;
      if (e.bert) {
        ++bert.examples;
        bert.random_next += e.next_sentence_label != 0;
        for (size_t k = 0; k < e.masked_lm_weights.size(); ++k) {
          if (e.masked_lm_weights[k] == 0.0f || e.masked_lm_positions[k] >= e.tokens.size()) {
            continue;
          }
          ++bert.masked;
          const uint32_t input = e.tokens[e.masked_lm_positions[k]];
          bert.as_mask += has_mask && input == mask_id;
          bert.as_original += input == e.masked_lm_ids[k];
        }
      }
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
      if (bert.examples > 0) {
        j["bert"] = {{"examples", bert.examples},
                     {"masked", bert.masked},
                     {"masked_as_original", bert.as_original},
                     {"random_next", bert.random_next}};
        if (has_mask) j["bert"]["masked_as_mask"] = bert.as_mask;
      }
      std::printf("%s\n", j.dump().c_str());
    } else {
      std::printf("  ok: %llu records, %llu tokens (%llu without padding), every check passed\n",
                  static_cast<unsigned long long>(c.records),
                  static_cast<unsigned long long>(c.tokens),
                  static_cast<unsigned long long>(c.real_tokens));
      if (bert.examples > 0) {
        const double m = static_cast<double>(std::max<uint64_t>(bert.masked, 1));
        std::printf("  bert: %llu masked positions (%.2f per example",
                    static_cast<unsigned long long>(bert.masked),
                    static_cast<double>(bert.masked) / static_cast<double>(bert.examples));
        if (has_mask) {
          std::printf(", %.1f%% [MASK]", 100.0 * static_cast<double>(bert.as_mask) / m);
        }
        std::printf(
            ", %.1f%% unchanged), %.1f%% random next sentences\n",
            100.0 * static_cast<double>(bert.as_original) / m,
            100.0 * static_cast<double>(bert.random_next) / static_cast<double>(bert.examples));
      }
    }
    total_bert.examples += bert.examples;
    total_bert.masked += bert.masked;
    total_bert.random_next += bert.random_next;
  }
  if (args.json) {
    nlohmann::json j = {{"shards", shards.size()},
                        {"records", total_records},
                        {"tokens", total_tokens},
                        {"real_tokens", total_real}};
    if (total_bert.examples > 0) {
      j["bert"] = {{"examples", total_bert.examples},
                   {"masked", total_bert.masked},
                   {"random_next", total_bert.random_next}};
    }
    std::printf("%s\n", j.dump().c_str());
  } else if (shards.size() > 1) {
    std::printf("total: %zu shards, %llu records, %llu tokens\n", shards.size(),
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
  cmd->add_option("shards", args->shards,
                  "TFRecord, Megatron (.idx/.bin/prefix) or llm.c files, or a job's output "
                  "folder (or its manifest.json): every shard it lists")
      ->required();
  cmd->add_option("--tokenizer", args->tokenizer, "decode ids to tokens with this tokenizer");
  cmd->add_option("--encoding", args->encoding, "tiktoken encoding of --tokenizer");
  cmd->add_option("--limit", args->limit, "examples printed per shard (default 3)");
  cmd->add_flag("--json", args->json, "one JSON object per shard, then one with the totals");
  cmd->callback([args, action] { *action = [args] { return RunInspect(*args); }; });
}

}  // namespace tokenmill::cli
