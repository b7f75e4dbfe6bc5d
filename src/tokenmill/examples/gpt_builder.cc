#include "tokenmill/examples/gpt_builder.h"

#include <algorithm>
#include <cassert>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenmill/base/byte_count.h"
#include "tokenmill/base/utf8.h"

namespace tokenmill {

namespace {

std::optional<uint32_t> Lookup(const Tokenizer& tokenizer, const std::string& token) {
  std::optional<uint32_t> id = tokenizer.TokenToId(token);
  if (!id.has_value()) {
    const auto it = tokenizer.specials().all.find(token);
    if (it != tokenizer.specials().all.end()) id = it->second;
  }
  return id;
}

// "a, b or c" of the spellings, after `first` when it is not empty.
std::string ListOf(std::string_view first, std::span<const std::string_view> spellings) {
  std::vector<std::string_view> all;
  if (!first.empty()) all.push_back(first);
  all.insert(all.end(), spellings.begin(), spellings.end());
  std::string out;
  for (size_t i = 0; i < all.size(); ++i) {
    if (i > 0) out += i + 1 == all.size() ? " or " : ", ";
    out += all[i];
  }
  return out;
}

}  // namespace

StatusOr<std::unique_ptr<GptBuilder>> GptBuilder::Create(const ExampleOptions& options,
                                                         const Tokenizer& tokenizer) {
  std::optional<uint32_t> eod_id;
  const SpecialTokens& specials = tokenizer.specials();
  if (options.append_eod) {
    if (options.eod_token.has_value()) {
      eod_id = Lookup(tokenizer, *options.eod_token);
      if (!eod_id.has_value()) {
        return Status::InvalidArgument("eod_token '" + *options.eod_token +
                                       "' is not a token of the tokenizer; set [examples] "
                                       "eod_token to one of its tokens, or remove it to use "
                                       "<|endoftext|> or the tokenizer's EOS");
      }
    } else if (specials.eod.has_value()) {
      eod_id = specials.eod;
    } else if (specials.eos.has_value()) {
      eod_id = specials.eos;
    } else {
      return Status::InvalidArgument("the tokenizer has no end-of-document token (" +
                                     ListOf("<|endoftext|>", kEosSpellings) +
                                     "); set [examples] eod_token (e.g. \"[SEP]\") or "
                                     "append_eod = false");
    }
  }
  std::optional<uint32_t> bos_id;
  if (options.prepend_bos) {
    if (options.bos_token.has_value()) {
      bos_id = Lookup(tokenizer, *options.bos_token);
      if (!bos_id.has_value()) {
        return Status::InvalidArgument("bos_token '" + *options.bos_token +
                                       "' is not a token of the tokenizer; set [examples] "
                                       "bos_token to one of its tokens, or remove it to use the "
                                       "tokenizer's BOS");
      }
    } else if (specials.bos.has_value()) {
      bos_id = specials.bos;
    } else {
      return Status::InvalidArgument(
          "prepend_bos: the tokenizer has no beginning-of-sequence token (" +
          ListOf("", kBosSpellings) + "); set [examples] bos_token or prepend_bos = false");
    }
  }
  return std::unique_ptr<GptBuilder>(new GptBuilder(tokenizer, eod_id, bos_id, options.eod_first));
}

GptBuilder::GptBuilder(const Tokenizer& tokenizer, std::optional<uint32_t> eod_id,
                       std::optional<uint32_t> bos_id, bool eod_first)
    : tokenizer_(tokenizer),
      eod_id_(eod_id),
      bos_id_(bos_id),
      eod_first_(eod_first),
      unk_id_(tokenizer.specials().unk) {}

Status GptBuilder::AddDocument(std::string_view text, const ExampleSink& sink) {
  ++stats_.documents;
  stats_.lines += 1 + static_cast<uint64_t>(CountByte(text, '\n'));
  if (text.size() > stream_bytes_) return AddLongDocument(text, sink);
  std::vector<uint32_t>& ids = example_.tokens;
  ids.clear();
  example_.more = false;
  const bool eod_before = eod_id_.has_value() && eod_first_;
  if (eod_before) ids.push_back(*eod_id_);
  if (bos_id_.has_value()) ids.push_back(*bos_id_);
  const size_t begin = ids.size();
  assert(FindInvalidUtf8(text) == std::string_view::npos);
  tokenizer_.EncodeValidUtf8(text, &ids);  // the reader has checked the text
  const size_t added = ids.size() - begin;
  if (added == 0) return Status::Ok();  // an empty document makes no example
  stats_.tokens += added;
  if (unk_id_.has_value()) {
    stats_.unk_tokens += static_cast<uint64_t>(
        std::count(ids.begin() + static_cast<std::ptrdiff_t>(begin), ids.end(), *unk_id_));
  }
  ObserveTokens(std::span<const uint32_t>(ids).subspan(begin));
  if (eod_id_.has_value() && !eod_first_) ids.push_back(*eod_id_);
  example_.num_real_tokens = static_cast<uint32_t>(ids.size());
  ++stats_.examples;
  return sink(example_);
}

Status GptBuilder::AddLongDocument(std::string_view text, const ExampleSink& sink) {
  std::vector<uint32_t>& ids = example_.tokens;
  ids.clear();
  if (eod_id_.has_value() && eod_first_) ids.push_back(*eod_id_);
  if (bos_id_.has_value()) ids.push_back(*bos_id_);
  uint64_t added = 0;
  Status status;
  tokenizer_.EncodeInPieces(text, piece_bytes_, [&](std::span<const uint32_t> piece) {
    if (!status.ok()) return;
    added += piece.size();
    if (unk_id_.has_value()) {
      stats_.unk_tokens += static_cast<uint64_t>(std::count(piece.begin(), piece.end(), *unk_id_));
    }
    ObserveTokens(piece);
    // A piece of many ids (one huge pre-token) goes out in parts too, never copied whole.
    while (!piece.empty() && status.ok()) {
      const size_t take = std::min(piece.size(), part_ids_ - std::min(part_ids_, ids.size()) + 1);
      ids.insert(ids.end(), piece.begin(), piece.begin() + static_cast<std::ptrdiff_t>(take));
      piece = piece.subspan(take);
      if (ids.size() >= part_ids_) {
        example_.num_real_tokens = static_cast<uint32_t>(ids.size());
        example_.more = true;
        status = sink(example_);
        ids.clear();
      }
    }
  });
  TM_RETURN_IF_ERROR(status);
  if (added == 0) return Status::Ok();  // no part was sent: fewer ids than part_ids_
  stats_.tokens += added;
  if (eod_id_.has_value() && !eod_first_) ids.push_back(*eod_id_);
  example_.num_real_tokens = static_cast<uint32_t>(ids.size());
  example_.more = false;
  ++stats_.examples;
  return sink(example_);
}

Status GptBuilder::Finish(const ExampleSink& sink) { return Status::Ok(); }

}  // namespace tokenmill
