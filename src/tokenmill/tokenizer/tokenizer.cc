#include "tokenmill/tokenizer/tokenizer.h"

#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>

#include "tokenmill/base/sha256.h"
#include "tokenmill/storage/storage.h"
#include "tokenmill/tokenizer/loaders/byte_level_bpe.h"
#include "tokenmill/tokenizer/loaders/hf_tokenizer_json.h"
#include "tokenmill/tokenizer/loaders/json_parse.h"
#include "tokenmill/tokenizer/loaders/sentencepiece_model.h"
#include "tokenmill/tokenizer/models/wordpiece.h"

namespace tokenmill {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// "encoder.json" style GPT-2 vocabularies are JSON objects of token -> id; tokenizer.json files
// have a "model" member.
bool IsHfTokenizerJson(std::string_view name, std::string_view data) {
  if (name == "encoder.json") return false;
  return data.find("\"model\"") != std::string_view::npos;
}

}  // namespace

std::string_view CompatModeName(CompatMode mode) {
  switch (mode) {
    case CompatMode::kHuggingFace:
      return "huggingface";
    case CompatMode::kGoogleBert:
      return "google-bert";
    case CompatMode::kGoogleElectra:
      return "google-electra";
  }
  return "?";
}

StatusOr<CompatMode> ParseCompatMode(std::string_view name) {
  if (name == "huggingface") return CompatMode::kHuggingFace;
  if (name == "google-bert") return CompatMode::kGoogleBert;
  if (name == "google-electra") return CompatMode::kGoogleElectra;
  return Status::InvalidArgument("unknown compat mode '" + std::string(name) +
                                 "'; use huggingface, google-bert or google-electra");
}

StatusOr<std::vector<std::pair<std::string, std::string>>> TokenizerFileLocations(
    const TokenizerOptions& options) {
  if (options.path.empty()) {
    return Status::InvalidArgument("no tokenizer path; set [tokenizer] path or --tokenizer");
  }
  std::vector<std::pair<std::string, std::string>> out;
  out.emplace_back("main", options.path);
  const std::string name = Basename(options.path);
  if (options.merges.has_value()) {
    out.emplace_back("merges", *options.merges);
  } else if (EndsWith(name, ".json") && name != "tokenizer.json" &&
             !EndsWith(name, "tokenizer.json")) {
    // GPT-2 encoder.json: the merges are the vocab.bpe beside it.
    out.emplace_back("merges", JoinPath(Dirname(options.path), "vocab.bpe"));
  }
  return out;
}

StatusOr<std::unique_ptr<Tokenizer>> LoadTokenizer(const TokenizerOptions& options,
                                                   const std::vector<TokenizerFile>& files) {
  const TokenizerFile* main = nullptr;
  const TokenizerFile* merges = nullptr;
  for (const auto& f : files) {
    if (f.role == "main") main = &f;
    if (f.role == "merges") merges = &f;
  }
  if (main == nullptr) return Status::InvalidArgument("no tokenizer file given");
  const std::string& name = main->name;
  if (EndsWith(name, ".tiktoken")) return LoadTiktoken(options, main->data, name);
  if (EndsWith(name, ".model")) return LoadSentencePieceModel(options, main->data, name);
  if (EndsWith(name, ".json")) {
    if (IsHfTokenizerJson(name, main->data)) {
      ParsedTokenizerJson parsed = ParseTokenizerJsonText(main->data);
      const nlohmann::json& j = parsed.json;
      if (j.is_discarded() || !j.is_object() || !j.contains("model") || !j["model"].is_object()) {
        return Status::InvalidArgument(name + ": not a valid HuggingFace tokenizer.json");
      }
      const nlohmann::json& model = j["model"];
      std::string type;
      if (model.contains("type") && model["type"].is_string()) type = model["type"];
      if (type.empty()) {
        // Older files have no "type"; HF infers it from the fields.
        if (model.contains("merges")) {
          type = "BPE";
        } else if (model.contains("vocab") && model["vocab"].is_array()) {
          type = "Unigram";
        } else if (model.contains("continuing_subword_prefix") ||
                   model.contains("max_input_chars_per_word")) {
          type = "WordPiece";
        }
      }
      if (type == "BPE" || type == "WordLevel" || type == "Unigram") {
        if (!(type == "BPE" && IsByteLevelTokenizerJson(j))) {
          return LoadHfPipelineTokenizerJson(options, std::move(parsed), name);  // parsed once
        }
      }
      if (type == "WordPiece")
        return LoadWordPieceParsedTokenizerJson(options, parsed, name);             // parsed once
      if (type == "BPE") return LoadBpeParsedTokenizerJson(options, parsed, name);  // parsed once
      return Status::InvalidArgument(
          name + ": model.type '" + type +
          "' is not supported; use WordPiece, BPE, Unigram or WordLevel");
    }
    if (merges == nullptr) {
      return Status::InvalidArgument(name + ": a GPT-2 encoder.json needs its merges (vocab.bpe)");
    }
    return LoadGpt2Encoder(options, main->data, merges->data, name);
  }
  return LoadWordPieceVocab(options, main->data, name);
}

StatusOr<std::unique_ptr<Tokenizer>> LoadTokenizerFromStorage(const TokenizerOptions& options) {
  TM_ASSIGN_OR_RETURN(auto locations, TokenizerFileLocations(options));
  std::vector<TokenizerFile> files;
  for (const auto& [role, location] : locations) {
    TM_ASSIGN_OR_RETURN(Storage * storage, StorageFor(location));
    auto data = storage->Read(location);
    if (!data.ok()) {
      return data.status().WithContext("cannot read tokenizer file " + location);
    }
    files.push_back({role, Basename(location), std::move(data).value()});
  }
  return LoadTokenizer(options, files);
}

namespace {

// Every setting that changes what LoadTokenizer builds, and the digests of the files.
std::string SharedTokenizerKey(const TokenizerOptions& o, const std::vector<TokenizerFile>& files) {
  auto opt = [](const auto& v) {
    if (!v.has_value()) return std::string("-");
    if constexpr (std::is_same_v<std::decay_t<decltype(*v)>, std::string>) {
      return "s" + std::to_string(v->size()) + ":" + *v;
    } else {
      return std::to_string(*v);
    }
  };
  std::string key = opt(o.merges) + "|" + opt(o.encoding) + "|" + opt(o.lowercase) + "|" +
                    opt(o.strip_accents) + "|" + opt(o.handle_chinese_chars) + "|" +
                    opt(o.clean_text) + "|" + opt(o.max_input_chars_per_word) + "|" +
                    std::to_string(o.split_special_tokens) + "|" +
                    std::to_string(static_cast<int>(o.compat));
  for (const TokenizerFile& f : files) {
    key += "|" + f.role + ":" + std::to_string(f.name.size()) + ":" + f.name + ":" +
           (f.sha256.empty() ? Sha256Hex(f.data) : f.sha256);
  }
  return key;
}

}  // namespace

StatusOr<std::shared_ptr<const Tokenizer>> LoadSharedTokenizer(
    const TokenizerOptions& options, const std::vector<TokenizerFile>& files) {
  static std::mutex mu;
  static std::deque<std::pair<std::string, std::shared_ptr<const Tokenizer>>> built;
  const std::string key = SharedTokenizerKey(options, files);
  {
    std::lock_guard<std::mutex> lock(mu);
    for (const auto& [k, tokenizer] : built) {
      if (k == key) return tokenizer;
    }
  }
  // Built outside the lock; two threads loading the same one at once both build it (harmless).
  TM_ASSIGN_OR_RETURN(std::unique_ptr<Tokenizer> loaded, LoadTokenizer(options, files));
  std::shared_ptr<const Tokenizer> tokenizer(std::move(loaded));
  std::lock_guard<std::mutex> lock(mu);
  built.emplace_back(key, tokenizer);
  if (built.size() > kSharedTokenizers) built.pop_front();
  return tokenizer;
}

}  // namespace tokenmill
