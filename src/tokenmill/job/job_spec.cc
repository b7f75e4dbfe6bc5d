#include "tokenmill/job/job_spec.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "tokenmill/base/units.h"
#include "tokenmill/base/utf8.h"
#include "tokenmill/examples/bert_builder.h"
#include "tokenmill/examples/electra_builder.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill {
namespace {

// ---------------------------------------------------------------------------------------------
// Names of the enumerations, as job files and the canonical JSON spell them.

constexpr std::string_view kKindNames = "\"electra\", \"bert\" or \"gpt\"";
constexpr std::string_view kInputFormatNames = "\"text\", \"jsonl\", \"json\" or \"parquet\"";
constexpr std::string_view kOutputFormatNames = "\"tfrecord\", \"megatron\" or \"llmc\"";
constexpr std::string_view kCompatNames = "\"huggingface\", \"google-bert\" or \"google-electra\"";

std::string_view KindName(ExampleKind kind) {
  if (kind == ExampleKind::kBert) return "bert";
  return kind == ExampleKind::kGpt ? "gpt" : "electra";
}
std::optional<ExampleKind> ParseKind(std::string_view s) {
  if (s == "electra") return ExampleKind::kElectra;
  if (s == "bert") return ExampleKind::kBert;
  if (s == "gpt") return ExampleKind::kGpt;
  return std::nullopt;
}
std::string_view InputFormatName(InputFormat f) {
  switch (f) {
    case InputFormat::kJsonl:
      return "jsonl";
    case InputFormat::kJson:
      return "json";
    case InputFormat::kParquet:
      return "parquet";
    case InputFormat::kText:
      break;
  }
  return "text";
}
std::optional<InputFormat> ParseInputFormat(std::string_view s) {
  if (s == "text") return InputFormat::kText;
  if (s == "jsonl") return InputFormat::kJsonl;
  if (s == "json") return InputFormat::kJson;
  if (s == "parquet") return InputFormat::kParquet;
  return std::nullopt;
}
std::string_view InvalidUtf8Name(InvalidUtf8 p) {
  return p == InvalidUtf8::kReplace ? "replace" : "drop";
}
std::optional<InvalidUtf8> ParseInvalidUtf8(std::string_view s) {
  if (s == "drop") return InvalidUtf8::kDrop;
  if (s == "replace") return InvalidUtf8::kReplace;
  return std::nullopt;
}
std::optional<bool> ParseOnBadRecord(std::string_view s) {  // true: skip
  if (s == "error") return false;
  if (s == "skip") return true;
  return std::nullopt;
}
std::string Quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

// The [examples] keys of kind = "bert" only.
constexpr std::string_view kBertKeys[] = {
    "max_predictions_per_seq", "masked_lm_prob",     "short_seq_prob", "dupe_factor",
    "do_whole_word_mask",      "random_next_window", "compat",         "chinese_whole_word"};
bool IsBertKey(std::string_view key) {
  return std::find(std::begin(kBertKeys), std::end(kBertKeys), key) != std::end(kBertKeys);
}

// ---------------------------------------------------------------------------------------------
// The keys of each table.

struct TableKeys {
  std::string_view table;
  std::vector<std::string_view> keys;
};

const std::vector<TableKeys>& KnownTables() {
  static const std::vector<TableKeys> tables = {
      {"input", {"paths", "format", "text_field", "strict_utf8", "on_bad_record", "sentences"}},
      {"tokenizer",
       {"path", "merges", "encoding", "lowercase", "strip_accents", "handle_chinese_chars",
        "clean_text", "max_input_chars_per_word", "split_special_tokens", "compat"}},
      {"examples",
       {"kind", "max_seq_length", "seed", "append_eod", "eod_token", "prepend_bos", "bos_token",
        "max_predictions_per_seq", "masked_lm_prob", "short_seq_prob", "dupe_factor",
        "do_whole_word_mask", "random_next_window", "compat", "chinese_whole_word"}},
      {"output", {"path", "format", "shard_size"}},
      {"job", {"task_size", "store", "lease_seconds", "max_attempts", "max_expiries"}},
  };
  return tables;
}

const TableKeys* FindTable(std::string_view name) {
  for (const TableKeys& t : KnownTables()) {
    if (t.table == name) return &t;
  }
  return nullptr;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (same ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The candidate closest to `word`, if it is close enough to be a likely typo.
std::optional<std::string_view> Suggest(std::string_view word,
                                        const std::vector<std::string_view>& candidates) {
  std::optional<std::string_view> best;
  size_t best_distance = std::numeric_limits<size_t>::max();
  for (const std::string_view c : candidates) {
    const size_t d = EditDistance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  if (!best.has_value()) return std::nullopt;
  const size_t limit = std::max<size_t>(2, std::max(word.size(), best->size()) / 3);
  const bool prefix = word.size() >= 3 && (best->starts_with(word) || word.starts_with(*best));
  if (best_distance <= limit || prefix) return best;
  return std::nullopt;
}

std::string JoinNames(const std::vector<std::string_view>& names, std::string_view open = "",
                      std::string_view close = "") {
  std::string out;
  for (const std::string_view n : names) {
    if (!out.empty()) out += ", ";
    out += std::string(open) + std::string(n) + std::string(close);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Paths.

// "scheme://" prefix, if `s` has one.
std::optional<std::string_view> UrlScheme(std::string_view s) {
  const size_t colon = s.find("://");
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  for (size_t i = 0; i < colon; ++i) {
    const char c = s[i];
    const bool ok = std::isalpha(static_cast<unsigned char>(c)) ||
                    (i > 0 && (std::isdigit(static_cast<unsigned char>(c)) || c == '+' ||
                               c == '-' || c == '.'));
    if (!ok) return std::nullopt;
  }
  return s.substr(0, colon);
}

std::string StripTrailingSlashes(std::string s) {
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

// Resolves `path` against `base_dir` (an absolute local folder or a URL "folder"). URLs are
// returned as they are; local paths are made absolute and lexically normal.
StatusOr<std::string> ResolvePath(std::string_view path, const std::string& base_dir) {
  if (const auto scheme = UrlScheme(path)) {
    if (!IsUrl(path)) {
      return Status::InvalidArgument("unsupported URL scheme '" + std::string(*scheme) + "' in \"" +
                                     std::string(path) +
                                     "\"; use a local path, s3://, gs:// or file://");
    }
    return std::string(path);
  }
  std::filesystem::path p{std::string(path)};
  if (UrlScheme(base_dir).has_value()) {
    if (p.is_absolute()) {
      return Status::InvalidArgument("absolute local path \"" + std::string(path) +
                                     "\" in a job file read from " + base_dir +
                                     "; use a URL or a path relative to the job file");
    }
    // Normalise below the bucket: "s3://b/jobs" + "../data/x" -> "s3://b/data/x".
    const size_t root = base_dir.find('/', base_dir.find("://") + 3);
    const std::string bucket = base_dir.substr(0, root);
    const std::string key = root == std::string::npos ? "" : base_dir.substr(root);
    std::string joined = (std::filesystem::path("/" + key) / p).lexically_normal().generic_string();
    return StripTrailingSlashes(bucket + joined);
  }
  if (p.is_relative()) p = std::filesystem::path(base_dir) / p;
  std::string out = StripTrailingSlashes(p.lexically_normal().generic_string());
  if (FindInvalidUtf8(out) != std::string::npos) {
    return Status::InvalidArgument("path \"" + out +
                                   "\" is not valid UTF-8; move the job or its data to a "
                                   "folder with a UTF-8 name");
  }
  return out;
}

// The folder that relative paths in `file_name` are resolved against.
std::string BaseDirOf(std::string_view file_name) {
  if (UrlScheme(file_name).has_value()) return Dirname(file_name);
  std::error_code ec;
  std::filesystem::path cwd = std::filesystem::current_path(ec);
  if (ec) cwd = "/";
  std::filesystem::path p{std::string(file_name)};
  if (p.is_relative()) p = cwd / p;
  return p.lexically_normal().parent_path().generic_string();
}

// ---------------------------------------------------------------------------------------------
// Validation shared by the TOML and the JSON paths. `where(table, key)` prefixes messages with
// the location of the key ("job.toml:7" or "job spec JSON").

using WhereFn = std::function<std::string(std::string_view table, std::string_view key)>;

Status Invalid(const WhereFn& where, std::string_view table, std::string_view key,
               const std::string& what) {
  return Status::InvalidArgument(where(table, key) + ": [" + std::string(table) + "] " +
                                 std::string(key) + " " + what);
}

Status ValidateSpec(const JobSpec& spec, const WhereFn& where) {
  if (spec.input_paths.empty()) {
    return Invalid(where, "input", "paths", "must list at least one input path or pattern");
  }
  for (const std::string& p : spec.input_paths) {
    if (p.empty()) return Invalid(where, "input", "paths", "holds an empty path");
  }
  if (spec.reader.text_field.empty()) {
    return Invalid(where, "input", "text_field", "must not be empty; default: \"text\"");
  }
  if (spec.tokenizer.path.empty()) {
    return Invalid(where, "tokenizer", "path", "must not be empty");
  }
  if (spec.tokenizer.max_input_chars_per_word.has_value() &&
      *spec.tokenizer.max_input_chars_per_word < 1) {
    return Invalid(
        where, "tokenizer", "max_input_chars_per_word",
        "must be at least 1, not " + std::to_string(*spec.tokenizer.max_input_chars_per_word));
  }
  const ExampleOptions& ex = spec.examples;
  if (ex.max_seq_length < kMinMaxSeqLength || ex.max_seq_length > kMaxMaxSeqLength) {
    return Invalid(where, "examples", "max_seq_length",
                   "must be between " + std::to_string(kMinMaxSeqLength) + " and " +
                       std::to_string(kMaxMaxSeqLength) + ", not " +
                       std::to_string(ex.max_seq_length));
  }
  if (ex.eod_token.has_value() && ex.eod_token->empty()) {
    return Invalid(where, "examples", "eod_token", "must not be empty");
  }
  if (ex.kind == ExampleKind::kBert) {
    if (ex.max_predictions_per_seq < 1 || ex.max_predictions_per_seq > ex.max_seq_length) {
      return Invalid(where, "examples", "max_predictions_per_seq",
                     "must be between 1 and max_seq_length (" + std::to_string(ex.max_seq_length) +
                         "), not " + std::to_string(ex.max_predictions_per_seq));
    }
    if (!(ex.masked_lm_prob > 0.0 && ex.masked_lm_prob < 1.0)) {
      return Invalid(where, "examples", "masked_lm_prob",
                     "must be greater than 0 and less than 1 (Google's default: 0.15)");
    }
    if (!(ex.short_seq_prob >= 0.0 && ex.short_seq_prob <= 1.0)) {
      return Invalid(where, "examples", "short_seq_prob",
                     "must be from 0 to 1 (Google's default: 0.1)");
    }
    if (ex.dupe_factor < 1 || ex.dupe_factor > kMaxDupeFactor) {
      return Invalid(where, "examples", "dupe_factor",
                     "must be between 1 and " + std::to_string(kMaxDupeFactor));
    }
    if (ex.random_next_window < 1 || ex.random_next_window > kMaxRandomNextWindow) {
      return Invalid(where, "examples", "random_next_window",
                     "must be between 1 and " + std::to_string(kMaxRandomNextWindow));
    }
    if (ex.google_compat && ex.chinese_whole_word) {
      return Invalid(where, "examples", "chinese_whole_word",
                     "is not part of create_pretraining_data.py: remove it, or remove compat");
    }
    if (ex.google_compat && spec.tokenizer.compat != CompatMode::kGoogleBert) {
      return Invalid(where, "tokenizer", "compat",
                     "must be \"google-bert\" (or unset) with [examples] compat = \"google\"");
    }
  }
  if (spec.reader.split_sentences && ex.kind == ExampleKind::kGpt) {
    return Invalid(where, "input", "sentences",
                   "= \"split\" applies only to bert and electra jobs (gpt examples are whole "
                   "documents); remove it");
  }
  const OutputFormat format = spec.output.format;
  if (ex.kind == ExampleKind::kBert && format != OutputFormat::kTfRecord) {
    return Invalid(where, "output", "format",
                   Quote(OutputFormatName(format)) +
                       " cannot hold bert examples; use \"tfrecord\" (or set [examples] "
                       "kind = \"gpt\")");
  }
  if (ex.kind == ExampleKind::kElectra && format != OutputFormat::kTfRecord) {
    return Invalid(where, "output", "format",
                   Quote(OutputFormatName(format)) +
                       " cannot hold electra examples; use \"tfrecord\" (or set [examples] "
                       "kind = \"gpt\")");
  }
  if (ex.kind == ExampleKind::kGpt && format == OutputFormat::kTfRecord) {
    return Invalid(where, "output", "format",
                   "\"tfrecord\" cannot hold gpt examples; use \"megatron\" or \"llmc\" (or set "
                   "[examples] kind = \"electra\")");
  }
  if (spec.output.path.empty()) return Invalid(where, "output", "path", "must not be empty");
  if (spec.output.shard_size == 0) {
    return Invalid(where, "output", "shard_size", "must be greater than 0");
  }
  if (spec.job.task_size == 0) return Invalid(where, "job", "task_size", "must be greater than 0");
  if (spec.job.lease_seconds < 3) {
    return Invalid(where, "job", "lease_seconds",
                   "must be at least 3, not " + std::to_string(spec.job.lease_seconds));
  }
  if (spec.job.max_attempts < 1) return Invalid(where, "job", "max_attempts", "must be at least 1");
  if (spec.job.max_expiries < 1) return Invalid(where, "job", "max_expiries", "must be at least 1");
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// TOML.

std::string_view TomlTypeName(toml::node_type type) {
  switch (type) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a floating-point number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    default:
      return "nothing";
  }
}

class TomlSpecParser {
 public:
  TomlSpecParser(std::string_view toml_text, std::string_view file_name)
      : text_(toml_text), file_(file_name), base_dir_(BaseDirOf(file_name)) {}

  StatusOr<JobSpec> Parse() {
    toml::table root;
    try {
      root = toml::parse(text_, file_);
    } catch (const toml::parse_error& e) {
      const auto& begin = e.source().begin;
      return Status::InvalidArgument(file_ + ":" + std::to_string(begin.line) + ":" +
                                     std::to_string(begin.column) +
                                     ": TOML syntax error: " + std::string(e.description()));
    } catch (const std::exception& e) {
      return Status::InvalidArgument(file_ + ": cannot parse the job file: " + e.what());
    }
    try {
      return FromTable(root);
    } catch (const std::exception& e) {
      return Status::Internal(file_ + ": unexpected error while reading the job file: " + e.what());
    }
  }

 private:
  std::string At(const toml::source_region& source) const {
    return file_ + ":" + std::to_string(source.begin.line);
  }
  std::string At(const toml::node& node) const { return At(node.source()); }

  StatusOr<JobSpec> FromTable(const toml::table& root) {
    TM_RETURN_IF_ERROR(CheckStructure(root));
    JobSpec spec;
    TM_RETURN_IF_ERROR(ReadInput(spec));
    TM_RETURN_IF_ERROR(ReadTokenizer(spec));
    TM_RETURN_IF_ERROR(ReadExamples(spec));
    TM_RETURN_IF_ERROR(ReadOutput(spec));
    TM_RETURN_IF_ERROR(ReadJob(spec));
    const WhereFn where = [this](std::string_view table, std::string_view key) {
      const auto it = lines_.find(std::string(table) + "." + std::string(key));
      if (it != lines_.end()) return file_ + ":" + std::to_string(it->second);
      const auto t = lines_.find(std::string(table));
      if (t != lines_.end()) return file_ + ":" + std::to_string(t->second);
      return file_;
    };
    TM_RETURN_IF_ERROR(ValidateSpec(spec, where));
    return spec;
  }

  // Unknown tables and keys, and tables that are not tables.
  Status CheckStructure(const toml::table& root) {
    std::vector<std::string_view> table_names;
    for (const TableKeys& t : KnownTables()) table_names.push_back(t.table);
    for (const auto& [key, node] : root) {
      const std::string name(key.str());
      const TableKeys* known = FindTable(name);
      if (known == nullptr) {
        if (node.is_table() || node.is_array_of_tables()) {
          std::string msg = At(key.source()) + ": unknown table [" + name + "]";
          if (const auto s = Suggest(name, table_names)) {
            msg += "; did you mean [" + std::string(*s) + "]?";
          } else {
            msg += "; the tables are " + JoinNames(table_names, "[", "]");
          }
          return Status::InvalidArgument(msg);
        }
        std::string msg = At(key.source()) + ": unknown key '" + name + "' at the top level";
        if (const auto home = TableHolding(name)) {
          msg += "; it belongs in [" + std::string(*home) + "]";
        } else {
          msg += "; keys belong in one of the tables " + JoinNames(table_names, "[", "]");
        }
        return Status::InvalidArgument(msg);
      }
      if (!node.is_table()) {
        return Status::InvalidArgument(At(key.source()) + ": [" + name + "] must be a table, not " +
                                       std::string(TomlTypeName(node.type())) + "; write [" + name +
                                       "] on a line of its own, followed by its keys");
      }
      const toml::table& table = *node.as_table();
      tables_[name] = &table;
      lines_[name] = key.source().begin.line;
      for (const auto& [k, v] : table) {
        const std::string kname(k.str());
        lines_[name + "." + kname] = k.source().begin.line;
        if (std::find(known->keys.begin(), known->keys.end(), kname) != known->keys.end()) {
          continue;
        }
        std::string msg = At(k.source()) + ": unknown key '" + kname + "' in [" + name + "]";
        if (const auto s = Suggest(kname, known->keys)) {
          msg += "; did you mean '" + std::string(*s) + "'?";
        } else if (const auto home = TableHolding(kname)) {
          msg += "; it belongs in [" + std::string(*home) + "]";
        } else {
          msg += "; the keys of [" + name + "] are " + JoinNames(known->keys);
        }
        return Status::InvalidArgument(msg);
      }
    }
    return Status::Ok();
  }

  static std::optional<std::string_view> TableHolding(std::string_view key) {
    for (const TableKeys& t : KnownTables()) {
      if (std::find(t.keys.begin(), t.keys.end(), key) != t.keys.end()) return t.table;
    }
    return std::nullopt;
  }

  const toml::node* Get(std::string_view table, std::string_view key) const {
    const auto it = tables_.find(std::string(table));
    if (it == tables_.end()) return nullptr;
    return it->second->get(key);
  }

  Status WrongType(std::string_view table, std::string_view key, const toml::node& node,
                   std::string_view want) const {
    return Status::InvalidArgument(At(node) + ": [" + std::string(table) + "] " + std::string(key) +
                                   " must be " + std::string(want) + ", not " +
                                   std::string(TomlTypeName(node.type())));
  }

  Status BadValue(std::string_view table, std::string_view key, const toml::node& node,
                  const std::string& what) const {
    return Status::InvalidArgument(At(node) + ": [" + std::string(table) + "] " + std::string(key) +
                                   " " + what);
  }

  StatusOr<std::optional<std::string>> String(std::string_view table, std::string_view key) {
    const toml::node* node = Get(table, key);
    if (node == nullptr) return std::optional<std::string>();
    if (!node->is_string()) return WrongType(table, key, *node, "a string");
    return std::optional<std::string>(node->as_string()->get());
  }

  StatusOr<std::optional<bool>> Bool(std::string_view table, std::string_view key) {
    const toml::node* node = Get(table, key);
    if (node == nullptr) return std::optional<bool>();
    if (!node->is_boolean()) return WrongType(table, key, *node, "true or false");
    return std::optional<bool>(node->as_boolean()->get());
  }

  // An integer in [lo, hi].
  StatusOr<std::optional<int64_t>> Int(std::string_view table, std::string_view key, int64_t lo,
                                       int64_t hi) {
    const toml::node* node = Get(table, key);
    if (node == nullptr) return std::optional<int64_t>();
    if (!node->is_integer()) return WrongType(table, key, *node, "an integer");
    const int64_t v = node->as_integer()->get();
    if (v < lo || v > hi) {
      std::string range = hi == std::numeric_limits<int64_t>::max()
                              ? "at least " + std::to_string(lo)
                              : "between " + std::to_string(lo) + " and " + std::to_string(hi);
      return BadValue(table, key, *node, "must be " + range + ", not " + std::to_string(v));
    }
    return std::optional<int64_t>(v);
  }

  // A byte count: a positive integer, or a string with a unit ("64MiB").
  StatusOr<std::optional<uint64_t>> Size(std::string_view table, std::string_view key) {
    const toml::node* node = Get(table, key);
    if (node == nullptr) return std::optional<uint64_t>();
    uint64_t v = 0;
    if (node->is_integer()) {
      const int64_t i = node->as_integer()->get();
      if (i <= 0) {
        return BadValue(table, key, *node, "must be greater than 0, not " + std::to_string(i));
      }
      v = static_cast<uint64_t>(i);
    } else if (node->is_string()) {
      auto parsed = ParseByteSize(node->as_string()->get());
      if (!parsed.ok()) {
        return Status::InvalidArgument(At(*node) + ": [" + std::string(table) + "] " +
                                       std::string(key) + ": " + parsed.status().message());
      }
      v = *parsed;
      if (v == 0) return BadValue(table, key, *node, "must be greater than 0");
    } else {
      return WrongType(table, key, *node, "a size (bytes, or a string such as \"64MiB\")");
    }
    return std::optional<uint64_t>(v);
  }

  StatusOr<std::string> Path(std::string_view table, std::string_view key, const std::string& value,
                             const toml::node& node) {
    if (value.empty()) return BadValue(table, key, node, "must not be empty");
    auto resolved = ResolvePath(value, base_dir_);
    if (!resolved.ok()) {
      return Status::InvalidArgument(At(node) + ": [" + std::string(table) + "] " +
                                     std::string(key) + ": " + resolved.status().message());
    }
    return std::move(resolved).value();
  }

  Status Missing(std::string_view table, std::string_view key, std::string_view example) const {
    const auto it = lines_.find(std::string(table));
    if (it == lines_.end()) {
      return Status::InvalidArgument(file_ + ": missing table [" + std::string(table) +
                                     "]; add it with its required key: [" + std::string(table) +
                                     "] " + std::string(key) + " = " + std::string(example));
    }
    return Status::InvalidArgument(file_ + ":" + std::to_string(it->second) + ": [" +
                                   std::string(table) + "] has no " + std::string(key) +
                                   ", which is required; add " + std::string(key) + " = " +
                                   std::string(example));
  }

  // A key that only applies to some settings of another key.
  Status NotApplicable(std::string_view table, std::string_view key, std::string_view when) {
    const toml::node* node = Get(table, key);
    return BadValue(table, key, *node, "applies only to " + std::string(when) + "; remove it");
  }

  Status ReadInput(JobSpec& spec) {
    const toml::node* paths = Get("input", "paths");
    if (paths == nullptr) return Missing("input", "paths", "[\"corpus/*.txt\"]");
    std::vector<std::pair<std::string, const toml::node*>> values;
    if (paths->is_string()) {
      values.emplace_back(paths->as_string()->get(), paths);
    } else if (paths->is_array()) {
      const toml::array& array = *paths->as_array();
      if (array.empty()) {
        return BadValue("input", "paths", *paths, "must list at least one input path or pattern");
      }
      for (size_t i = 0; i < array.size(); ++i) {
        const toml::node& element = *array.get(i);
        if (!element.is_string()) {
          return WrongType("input", "paths[" + std::to_string(i) + "]", element, "a string");
        }
        values.emplace_back(element.as_string()->get(), &element);
      }
    } else {
      return WrongType("input", "paths", *paths, "an array of strings or a string");
    }
    for (const auto& [value, node] : values) {
      TM_ASSIGN_OR_RETURN(std::string resolved, Path("input", "paths", value, *node));
      spec.input_paths.push_back(std::move(resolved));
    }

    TM_ASSIGN_OR_RETURN(auto format, String("input", "format"));
    if (format.has_value()) {
      const auto f = ParseInputFormat(*format);
      if (!f.has_value()) {
        return BadValue("input", "format", *Get("input", "format"),
                        "must be " + std::string(kInputFormatNames) + ", not " + Quote(*format));
      }
      spec.reader.format = *f;
    }
    // Records with a text field: jsonl, json and parquet.
    const bool jsonl = spec.reader.format != InputFormat::kText;
    TM_ASSIGN_OR_RETURN(auto text_field, String("input", "text_field"));
    if (text_field.has_value()) {
      if (!jsonl) {
        return NotApplicable("input", "text_field", "format = \"jsonl\", \"json\" or \"parquet\"");
      }
      if (text_field->empty()) {
        return BadValue("input", "text_field", *Get("input", "text_field"), "must not be empty");
      }
      spec.reader.text_field = *text_field;
    }
    TM_ASSIGN_OR_RETURN(auto sentences, String("input", "sentences"));
    if (sentences.has_value()) {
      if (*sentences != "lines" && *sentences != "split") {
        return BadValue("input", "sentences", *Get("input", "sentences"),
                        "must be \"lines\" or \"split\", not " + Quote(*sentences));
      }
      spec.reader.split_sentences = *sentences == "split";
    }
    TM_ASSIGN_OR_RETURN(auto strict, Bool("input", "strict_utf8"));
    if (strict.has_value()) spec.reader.strict_utf8 = *strict;
    TM_ASSIGN_OR_RETURN(auto on_bad, String("input", "on_bad_record"));
    if (on_bad.has_value()) {
      if (!jsonl) {
        return NotApplicable("input", "on_bad_record",
                             "format = \"jsonl\", \"json\" or \"parquet\"");
      }
      const auto skip = ParseOnBadRecord(*on_bad);
      if (!skip.has_value()) {
        return BadValue("input", "on_bad_record", *Get("input", "on_bad_record"),
                        "must be \"error\" or \"skip\", not " + Quote(*on_bad));
      }
      spec.reader.skip_bad_records = *skip;
    }
    return Status::Ok();
  }

  Status ReadTokenizer(JobSpec& spec) {
    TokenizerOptions& t = spec.tokenizer;
    TM_ASSIGN_OR_RETURN(auto path, String("tokenizer", "path"));
    if (!path.has_value()) return Missing("tokenizer", "path", "\"vocab/vocab.txt\"");
    TM_ASSIGN_OR_RETURN(t.path, Path("tokenizer", "path", *path, *Get("tokenizer", "path")));
    TM_ASSIGN_OR_RETURN(auto merges, String("tokenizer", "merges"));
    if (merges.has_value()) {
      TM_ASSIGN_OR_RETURN(t.merges,
                          Path("tokenizer", "merges", *merges, *Get("tokenizer", "merges")));
    }
    TM_ASSIGN_OR_RETURN(t.encoding, String("tokenizer", "encoding"));
    if (t.encoding.has_value() && t.encoding->empty()) {
      return BadValue("tokenizer", "encoding", *Get("tokenizer", "encoding"), "must not be empty");
    }
    TM_ASSIGN_OR_RETURN(t.lowercase, Bool("tokenizer", "lowercase"));
    TM_ASSIGN_OR_RETURN(t.strip_accents, Bool("tokenizer", "strip_accents"));
    TM_ASSIGN_OR_RETURN(t.handle_chinese_chars, Bool("tokenizer", "handle_chinese_chars"));
    TM_ASSIGN_OR_RETURN(t.clean_text, Bool("tokenizer", "clean_text"));
    TM_ASSIGN_OR_RETURN(auto max_chars, Int("tokenizer", "max_input_chars_per_word", 1,
                                            std::numeric_limits<int>::max()));
    if (max_chars.has_value()) t.max_input_chars_per_word = static_cast<int>(*max_chars);
    TM_ASSIGN_OR_RETURN(auto split, Bool("tokenizer", "split_special_tokens"));
    if (split.has_value()) t.split_special_tokens = *split;
    TM_ASSIGN_OR_RETURN(auto compat, String("tokenizer", "compat"));
    if (compat.has_value()) {
      auto mode = ParseCompatMode(*compat);
      if (!mode.ok()) {
        return BadValue("tokenizer", "compat", *Get("tokenizer", "compat"),
                        "must be " + std::string(kCompatNames) + ", not " + Quote(*compat));
      }
      t.compat = *mode;
      tokenizer_compat_set_ = true;
    }
    return Status::Ok();
  }

  // A floating-point number (an integer is accepted too).
  StatusOr<std::optional<double>> Double(std::string_view table, std::string_view key) {
    const toml::node* node = Get(table, key);
    if (node == nullptr) return std::optional<double>();
    if (node->is_floating_point()) return std::optional<double>(node->as_floating_point()->get());
    if (node->is_integer()) {
      return std::optional<double>(static_cast<double>(node->as_integer()->get()));
    }
    return WrongType(table, key, *node, "a number");
  }

  // The keys of kind = "bert" (docs/job-file.md).
  Status ReadBertExamples(JobSpec& spec) {
    ExampleOptions& ex = spec.examples;
    const bool bert = ex.kind == ExampleKind::kBert;
    for (const std::string_view key : kBertKeys) {
      if (!bert && Get("examples", key) != nullptr) {
        return NotApplicable("examples", key, "kind = \"bert\"");
      }
    }
    if (!bert) return Status::Ok();
    constexpr int64_t kMaxU32 = std::numeric_limits<uint32_t>::max();
    TM_ASSIGN_OR_RETURN(auto predictions, Int("examples", "max_predictions_per_seq", 1, kMaxU32));
    if (predictions.has_value()) ex.max_predictions_per_seq = static_cast<uint32_t>(*predictions);
    if (ex.max_predictions_per_seq > ex.max_seq_length) {
      const toml::node* node = Get("examples", "max_predictions_per_seq");
      const std::string what = "must not be larger than max_seq_length (" +
                               std::to_string(ex.max_seq_length) + "), not " +
                               std::to_string(ex.max_predictions_per_seq);
      if (node != nullptr) return BadValue("examples", "max_predictions_per_seq", *node, what);
      return Status::InvalidArgument(file_ + ": [examples] max_predictions_per_seq (default 20) " +
                                     what + "; set max_predictions_per_seq");
    }
    TM_ASSIGN_OR_RETURN(auto mlm, Double("examples", "masked_lm_prob"));
    if (mlm.has_value()) {
      if (!(*mlm > 0.0 && *mlm < 1.0)) {
        return BadValue("examples", "masked_lm_prob", *Get("examples", "masked_lm_prob"),
                        "must be greater than 0 and less than 1, not " + std::to_string(*mlm) +
                            " (Google's default: 0.15)");
      }
      ex.masked_lm_prob = *mlm;
    }
    TM_ASSIGN_OR_RETURN(auto short_seq, Double("examples", "short_seq_prob"));
    if (short_seq.has_value()) {
      if (!(*short_seq >= 0.0 && *short_seq <= 1.0)) {
        return BadValue("examples", "short_seq_prob", *Get("examples", "short_seq_prob"),
                        "must be from 0 to 1, not " + std::to_string(*short_seq));
      }
      ex.short_seq_prob = *short_seq;
    }
    TM_ASSIGN_OR_RETURN(auto dupe, Int("examples", "dupe_factor", 1, kMaxDupeFactor));
    if (dupe.has_value()) ex.dupe_factor = static_cast<uint32_t>(*dupe);
    TM_ASSIGN_OR_RETURN(auto wwm, Bool("examples", "do_whole_word_mask"));
    if (wwm.has_value()) ex.do_whole_word_mask = *wwm;
    TM_ASSIGN_OR_RETURN(auto chinese, Bool("examples", "chinese_whole_word"));
    if (chinese.has_value()) ex.chinese_whole_word = *chinese;
    TM_ASSIGN_OR_RETURN(auto window,
                        Int("examples", "random_next_window", 1, kMaxRandomNextWindow));
    if (window.has_value()) ex.random_next_window = static_cast<uint32_t>(*window);
    TM_ASSIGN_OR_RETURN(auto compat, String("examples", "compat"));
    if (compat.has_value()) {
      const toml::node& node = *Get("examples", "compat");
      if (*compat != "google") {
        return BadValue(
            "examples", "compat", node,
            "must be \"google\" (or unset, for the default mode), not " + Quote(*compat));
      }
      ex.google_compat = true;
      if (ex.chinese_whole_word) {
        return BadValue("examples", "chinese_whole_word", *Get("examples", "chinese_whole_word"),
                        "is not part of create_pretraining_data.py: remove it, or remove "
                        "compat = \"google\" (" +
                            At(node) + ")");
      }
      if (window.has_value()) {
        return NotApplicable("examples", "random_next_window", "the default mode (no compat)");
      }
      // The tokenizer of create_pretraining_data.py.
      if (!tokenizer_compat_set_) {
        spec.tokenizer.compat = CompatMode::kGoogleBert;
      } else if (spec.tokenizer.compat != CompatMode::kGoogleBert) {
        return BadValue("tokenizer", "compat", *Get("tokenizer", "compat"),
                        "must be \"google-bert\" (or unset) when [examples] compat = "
                        "\"google\" (" +
                            At(node) +
                            "): the script tokenizes with Google's "
                            "tokenization.py");
      }
    }
    return Status::Ok();
  }

  Status ReadExamples(JobSpec& spec) {
    ExampleOptions& ex = spec.examples;
    TM_ASSIGN_OR_RETURN(auto kind, String("examples", "kind"));
    if (kind.has_value()) {
      const auto k = ParseKind(*kind);
      if (!k.has_value()) {
        return BadValue("examples", "kind", *Get("examples", "kind"),
                        "must be " + std::string(kKindNames) + ", not " + Quote(*kind));
      }
      ex.kind = *k;
    }
    const bool gpt = ex.kind == ExampleKind::kGpt;
    TM_ASSIGN_OR_RETURN(auto max_len,
                        Int("examples", "max_seq_length", kMinMaxSeqLength, kMaxMaxSeqLength));
    if (max_len.has_value()) {
      if (gpt) return NotApplicable("examples", "max_seq_length", "kind = \"electra\" or \"bert\"");
      ex.max_seq_length = static_cast<uint32_t>(*max_len);
    }
    TM_ASSIGN_OR_RETURN(auto seed, Int("examples", "seed", 0, std::numeric_limits<int64_t>::max()));
    if (seed.has_value()) ex.seed = static_cast<uint64_t>(*seed);
    TM_ASSIGN_OR_RETURN(auto append_eod, Bool("examples", "append_eod"));
    if (append_eod.has_value()) {
      if (!gpt) return NotApplicable("examples", "append_eod", "kind = \"gpt\"");
      ex.append_eod = *append_eod;
    }
    TM_ASSIGN_OR_RETURN(auto eod_token, String("examples", "eod_token"));
    if (eod_token.has_value()) {
      if (!gpt) return NotApplicable("examples", "eod_token", "kind = \"gpt\"");
      if (eod_token->empty()) {
        return BadValue("examples", "eod_token", *Get("examples", "eod_token"),
                        "must not be empty");
      }
      ex.eod_token = *eod_token;
    }
    TM_ASSIGN_OR_RETURN(auto prepend_bos, Bool("examples", "prepend_bos"));
    if (prepend_bos.has_value()) {
      if (!gpt) return NotApplicable("examples", "prepend_bos", "kind = \"gpt\"");
      ex.prepend_bos = *prepend_bos;
    }
    TM_ASSIGN_OR_RETURN(auto bos_token, String("examples", "bos_token"));
    if (bos_token.has_value()) {
      if (!gpt) return NotApplicable("examples", "bos_token", "kind = \"gpt\"");
      if (bos_token->empty()) {
        return BadValue("examples", "bos_token", *Get("examples", "bos_token"),
                        "must not be empty");
      }
      ex.bos_token = *bos_token;
    }
    return ReadBertExamples(spec);
  }

  Status ReadOutput(JobSpec& spec) {
    OutputSpec& out = spec.output;
    TM_ASSIGN_OR_RETURN(auto path, String("output", "path"));
    if (!path.has_value()) return Missing("output", "path", "\"out/my-dataset\"");
    TM_ASSIGN_OR_RETURN(out.path, Path("output", "path", *path, *Get("output", "path")));
    TM_ASSIGN_OR_RETURN(auto format, String("output", "format"));
    if (format.has_value()) {
      auto f = ParseOutputFormat(*format);
      if (!f.ok()) {
        return BadValue("output", "format", *Get("output", "format"),
                        "must be " + std::string(kOutputFormatNames) + ", not " + Quote(*format));
      }
      out.format = *f;
    } else {
      // Default: the format made for the kind of examples.
      out.format = spec.examples.kind == ExampleKind::kGpt ? OutputFormat::kMegatron
                                                           : OutputFormat::kTfRecord;
    }
    // llm.c starts every document with <|endoftext|>; Megatron ends it with the token.
    spec.examples.eod_first = out.format == OutputFormat::kLlmc;
    TM_ASSIGN_OR_RETURN(auto shard_size, Size("output", "shard_size"));
    if (shard_size.has_value()) out.shard_size = *shard_size;
    return Status::Ok();
  }

  Status ReadJob(JobSpec& spec) {
    JobSettings& job = spec.job;
    TM_ASSIGN_OR_RETURN(auto task_size, Size("job", "task_size"));
    if (task_size.has_value()) job.task_size = *task_size;
    if (spec.examples.google_compat) {
      // The script reads its whole input at once: one task (the builder enforces the size limit).
      if (task_size.has_value()) {
        return NotApplicable("job", "task_size", "jobs without [examples] compat = \"google\"");
      }
      job.task_size = kGoogleCompatTaskSize;
    }
    TM_ASSIGN_OR_RETURN(auto store, String("job", "store"));
    if (store.has_value()) {
      TM_ASSIGN_OR_RETURN(job.store, Path("job", "store", *store, *Get("job", "store")));
    } else {
      job.store = JoinPath(spec.output.path, "_job");
    }
    constexpr int64_t kMaxU32 = std::numeric_limits<uint32_t>::max();
    TM_ASSIGN_OR_RETURN(auto lease, Int("job", "lease_seconds", 3, kMaxU32));
    if (lease.has_value()) job.lease_seconds = static_cast<uint32_t>(*lease);
    TM_ASSIGN_OR_RETURN(auto attempts, Int("job", "max_attempts", 1, kMaxU32));
    if (attempts.has_value()) job.max_attempts = static_cast<uint32_t>(*attempts);
    TM_ASSIGN_OR_RETURN(auto expiries, Int("job", "max_expiries", 1, kMaxU32));
    if (expiries.has_value()) job.max_expiries = static_cast<uint32_t>(*expiries);
    return Status::Ok();
  }

  std::string_view text_;
  std::string file_;
  std::string base_dir_;
  std::map<std::string, const toml::table*> tables_;
  std::map<std::string, uint32_t> lines_;  // "table" and "table.key" -> line
  bool tokenizer_compat_set_ = false;
};

// ---------------------------------------------------------------------------------------------
// JSON.

using Json = nlohmann::json;

Json OptionalJson(const std::optional<std::string>& v) { return v ? Json(*v) : Json(nullptr); }
Json OptionalJson(const std::optional<bool>& v) { return v ? Json(*v) : Json(nullptr); }
Json OptionalJson(const std::optional<int>& v) { return v ? Json(*v) : Json(nullptr); }

// Reads the canonical JSON back, strictly: every table and key present, nothing else.
class JsonSpecReader {
 public:
  explicit JsonSpecReader(const Json& root) : root_(root) {}

  StatusOr<JobSpec> Read() {
    if (!root_.is_object()) return Error("the job spec is not a JSON object");
    for (const auto& [name, value] : root_.items()) {
      const TableKeys* t = FindTable(name);
      if (t == nullptr) return Error("unknown table \"" + name + "\"");
      if (!value.is_object()) return Error("\"" + name + "\" is not an object");
      std::vector<std::string_view> expected = t->keys;
      AddJsonOnlyKeys(name, &expected);
      if (name == "input" && !value.contains("sentences")) {
        // "sentences" is in the canonical JSON of "split" jobs only.
        std::erase(expected, std::string_view("sentences"));
      }
      if (name == "examples" && value.value("kind", "") != "bert") {
        // The bert keys are in the canonical JSON of bert jobs only.
        std::erase_if(expected, [](std::string_view k) { return IsBertKey(k); });
      }
      for (const auto& [key, v] : value.items()) {
        if (std::find(expected.begin(), expected.end(), key) == expected.end()) {
          return Error("unknown key \"" + name + "." + key + "\"");
        }
      }
      for (const std::string_view key : expected) {
        if (!value.contains(std::string(key)) && !OmittedWhenDefault(name, key)) {
          return Error("missing key \"" + name + "." + std::string(key) + "\"");
        }
      }
    }
    for (const TableKeys& t : KnownTables()) {
      if (!root_.contains(std::string(t.table))) {
        return Error("missing table \"" + std::string(t.table) + "\"");
      }
    }

    JobSpec spec;
    // [input]
    const Json& paths = At("input", "paths");
    if (!paths.is_array()) return Type("input", "paths", "an array of strings");
    for (const Json& p : paths) {
      if (!p.is_string()) return Type("input", "paths", "an array of strings");
      spec.input_paths.push_back(p.get<std::string>());
    }
    TM_ASSIGN_OR_RETURN(std::string input_format, Str("input", "format"));
    const auto f = ParseInputFormat(input_format);
    if (!f.has_value()) return Value("input", "format", input_format);
    spec.reader.format = *f;
    TM_ASSIGN_OR_RETURN(spec.reader.text_field, Str("input", "text_field"));
    TM_ASSIGN_OR_RETURN(spec.reader.strict_utf8, Bool("input", "strict_utf8"));
    TM_ASSIGN_OR_RETURN(std::string on_bad, Str("input", "on_bad_record"));
    const auto skip = ParseOnBadRecord(on_bad);
    if (!skip.has_value()) return Value("input", "on_bad_record", on_bad);
    spec.reader.skip_bad_records = *skip;
    TM_ASSIGN_OR_RETURN(std::string invalid, Str("input", "invalid_utf8"));
    const auto policy = ParseInvalidUtf8(invalid);
    if (!policy.has_value()) return Value("input", "invalid_utf8", invalid);
    spec.reader.invalid_utf8 = *policy;
    if (root_.at("input").contains("sentences")) {
      TM_ASSIGN_OR_RETURN(std::string sentences, Str("input", "sentences"));
      if (sentences != "split") return Value("input", "sentences", sentences);
      spec.reader.split_sentences = true;
    }

    // [tokenizer]
    TokenizerOptions& t = spec.tokenizer;
    TM_ASSIGN_OR_RETURN(t.path, Str("tokenizer", "path"));
    TM_ASSIGN_OR_RETURN(t.merges, OptStr("tokenizer", "merges"));
    TM_ASSIGN_OR_RETURN(t.encoding, OptStr("tokenizer", "encoding"));
    TM_ASSIGN_OR_RETURN(t.lowercase, OptBool("tokenizer", "lowercase"));
    TM_ASSIGN_OR_RETURN(t.strip_accents, OptBool("tokenizer", "strip_accents"));
    TM_ASSIGN_OR_RETURN(t.handle_chinese_chars, OptBool("tokenizer", "handle_chinese_chars"));
    TM_ASSIGN_OR_RETURN(t.clean_text, OptBool("tokenizer", "clean_text"));
    const Json& max_chars = At("tokenizer", "max_input_chars_per_word");
    if (!max_chars.is_null()) {
      TM_ASSIGN_OR_RETURN(uint64_t v, Uint("tokenizer", "max_input_chars_per_word",
                                           std::numeric_limits<int>::max()));
      t.max_input_chars_per_word = static_cast<int>(v);
    }
    TM_ASSIGN_OR_RETURN(t.split_special_tokens, Bool("tokenizer", "split_special_tokens"));
    TM_ASSIGN_OR_RETURN(std::string compat, Str("tokenizer", "compat"));
    auto mode = ParseCompatMode(compat);
    if (!mode.ok()) return Value("tokenizer", "compat", compat);
    t.compat = *mode;

    // [examples]
    ExampleOptions& ex = spec.examples;
    TM_ASSIGN_OR_RETURN(std::string kind, Str("examples", "kind"));
    const auto k = ParseKind(kind);
    if (!k.has_value()) return Value("examples", "kind", kind);
    ex.kind = *k;
    TM_ASSIGN_OR_RETURN(uint64_t max_len, Uint("examples", "max_seq_length", UINT32_MAX));
    ex.max_seq_length = static_cast<uint32_t>(max_len);
    TM_ASSIGN_OR_RETURN(ex.seed, Uint("examples", "seed", UINT64_MAX));
    TM_ASSIGN_OR_RETURN(ex.append_eod, Bool("examples", "append_eod"));
    TM_ASSIGN_OR_RETURN(ex.eod_first, Bool("examples", "eod_first"));
    TM_ASSIGN_OR_RETURN(ex.eod_token, OptStr("examples", "eod_token"));
    if (root_.at("examples").contains("prepend_bos")) {
      TM_ASSIGN_OR_RETURN(ex.prepend_bos, Bool("examples", "prepend_bos"));
    }
    if (root_.at("examples").contains("bos_token")) {
      TM_ASSIGN_OR_RETURN(ex.bos_token, OptStr("examples", "bos_token"));
    }
    if (ex.kind == ExampleKind::kBert) TM_RETURN_IF_ERROR(ReadBert(ex));

    // [output]
    TM_ASSIGN_OR_RETURN(spec.output.path, Str("output", "path"));
    TM_ASSIGN_OR_RETURN(std::string out_format, Str("output", "format"));
    auto of = ParseOutputFormat(out_format);
    if (!of.ok()) return Value("output", "format", out_format);
    spec.output.format = *of;
    TM_ASSIGN_OR_RETURN(spec.output.shard_size, Uint("output", "shard_size", UINT64_MAX));

    // [job]
    TM_ASSIGN_OR_RETURN(spec.job.task_size, Uint("job", "task_size", UINT64_MAX));
    TM_ASSIGN_OR_RETURN(spec.job.store, Str("job", "store"));
    TM_ASSIGN_OR_RETURN(uint64_t lease, Uint("job", "lease_seconds", UINT32_MAX));
    spec.job.lease_seconds = static_cast<uint32_t>(lease);
    TM_ASSIGN_OR_RETURN(uint64_t attempts, Uint("job", "max_attempts", UINT32_MAX));
    spec.job.max_attempts = static_cast<uint32_t>(attempts);
    TM_ASSIGN_OR_RETURN(uint64_t expiries, Uint("job", "max_expiries", UINT32_MAX));
    spec.job.max_expiries = static_cast<uint32_t>(expiries);

    TM_RETURN_IF_ERROR(ValidateSpec(
        spec, [](std::string_view, std::string_view) { return std::string("job spec JSON"); }));
    return spec;
  }

  // Keys the canonical JSON leaves out when they have their default (added after the canonical
  // form was fixed, so older specs keep their digest).
  static bool OmittedWhenDefault(std::string_view table, std::string_view key) {
    return table == "examples" && (key == "prepend_bos" || key == "bos_token");
  }

  Status ReadBert(ExampleOptions& ex) const {
    TM_ASSIGN_OR_RETURN(uint64_t predictions,
                        Uint("examples", "max_predictions_per_seq", UINT32_MAX));
    ex.max_predictions_per_seq = static_cast<uint32_t>(predictions);
    TM_ASSIGN_OR_RETURN(ex.masked_lm_prob, Number("examples", "masked_lm_prob"));
    TM_ASSIGN_OR_RETURN(ex.short_seq_prob, Number("examples", "short_seq_prob"));
    TM_ASSIGN_OR_RETURN(uint64_t dupe, Uint("examples", "dupe_factor", UINT32_MAX));
    ex.dupe_factor = static_cast<uint32_t>(dupe);
    TM_ASSIGN_OR_RETURN(ex.do_whole_word_mask, Bool("examples", "do_whole_word_mask"));
    TM_ASSIGN_OR_RETURN(ex.chinese_whole_word, Bool("examples", "chinese_whole_word"));
    TM_ASSIGN_OR_RETURN(uint64_t window, Uint("examples", "random_next_window", UINT32_MAX));
    ex.random_next_window = static_cast<uint32_t>(window);
    TM_ASSIGN_OR_RETURN(std::optional<std::string> ex_compat, OptStr("examples", "compat"));
    if (ex_compat.has_value() && *ex_compat != "google") {
      return Value("examples", "compat", *ex_compat);
    }
    ex.google_compat = ex_compat.has_value();
    return Status::Ok();
  }

  // Keys the canonical JSON holds beyond the job file's.
  static void AddJsonOnlyKeys(std::string_view table, std::vector<std::string_view>* keys) {
    if (table == "input") keys->push_back("invalid_utf8");
    if (table == "examples") keys->push_back("eod_first");
  }

 private:
  static Status Error(const std::string& what) {
    return Status::InvalidArgument("job spec JSON: " + what +
                                   "; the job store holds a spec from another tokenmill version "
                                   "or was edited by hand: plan the job again");
  }
  const Json& At(const char* table, const char* key) const { return root_.at(table).at(key); }
  static Status Type(const char* table, const char* key, const char* want) {
    return Error("\"" + std::string(table) + "." + key + "\" must be " + want);
  }
  static Status Value(const char* table, const char* key, const std::string& v) {
    return Error("\"" + std::string(table) + "." + key + "\" has the unknown value \"" + v + "\"");
  }
  StatusOr<std::string> Str(const char* table, const char* key) const {
    const Json& v = At(table, key);
    if (!v.is_string()) return Type(table, key, "a string");
    return v.get<std::string>();
  }
  StatusOr<std::optional<std::string>> OptStr(const char* table, const char* key) const {
    const Json& v = At(table, key);
    if (v.is_null()) return std::optional<std::string>();
    if (!v.is_string()) return Type(table, key, "a string or null");
    return std::optional<std::string>(v.get<std::string>());
  }
  StatusOr<bool> Bool(const char* table, const char* key) const {
    const Json& v = At(table, key);
    if (!v.is_boolean()) return Type(table, key, "true or false");
    return v.get<bool>();
  }
  StatusOr<std::optional<bool>> OptBool(const char* table, const char* key) const {
    const Json& v = At(table, key);
    if (v.is_null()) return std::optional<bool>();
    if (!v.is_boolean()) return Type(table, key, "true, false or null");
    return std::optional<bool>(v.get<bool>());
  }
  StatusOr<double> Number(const char* table, const char* key) const {
    const Json& v = At(table, key);
    if (!v.is_number()) return Type(table, key, "a number");
    return v.get<double>();
  }
  StatusOr<uint64_t> Uint(const char* table, const char* key, uint64_t max) const {
    const Json& v = At(table, key);
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0)) {
      return Type(table, key, "a non-negative integer");
    }
    const uint64_t u = v.get<uint64_t>();
    if (u > max) return Type(table, key, ("at most " + std::to_string(max)).c_str());
    return u;
  }

  const Json& root_;
};

}  // namespace

std::string JobSpec::ToJson() const {
  Json j;
  j["input"] = {
      {"paths", input_paths},
      {"format", InputFormatName(reader.format)},
      {"text_field", reader.text_field},
      {"strict_utf8", reader.strict_utf8},
      {"on_bad_record", reader.skip_bad_records ? "skip" : "error"},
      {"invalid_utf8", InvalidUtf8Name(reader.invalid_utf8)},
  };
  if (reader.split_sentences) j["input"]["sentences"] = "split";
  j["tokenizer"] = {
      {"path", tokenizer.path},
      {"merges", OptionalJson(tokenizer.merges)},
      {"encoding", OptionalJson(tokenizer.encoding)},
      {"lowercase", OptionalJson(tokenizer.lowercase)},
      {"strip_accents", OptionalJson(tokenizer.strip_accents)},
      {"handle_chinese_chars", OptionalJson(tokenizer.handle_chinese_chars)},
      {"clean_text", OptionalJson(tokenizer.clean_text)},
      {"max_input_chars_per_word", OptionalJson(tokenizer.max_input_chars_per_word)},
      {"split_special_tokens", tokenizer.split_special_tokens},
      {"compat", CompatModeName(tokenizer.compat)},
  };
  j["examples"] = {
      {"kind", KindName(examples.kind)}, {"max_seq_length", examples.max_seq_length},
      {"seed", examples.seed},           {"append_eod", examples.append_eod},
      {"eod_first", examples.eod_first}, {"eod_token", OptionalJson(examples.eod_token)},
  };
  if (examples.prepend_bos) j["examples"]["prepend_bos"] = true;
  if (examples.bos_token.has_value()) j["examples"]["bos_token"] = *examples.bos_token;
  if (examples.kind == ExampleKind::kBert) {
    Json& ex = j["examples"];
    ex["max_predictions_per_seq"] = examples.max_predictions_per_seq;
    ex["masked_lm_prob"] = examples.masked_lm_prob;
    ex["short_seq_prob"] = examples.short_seq_prob;
    ex["dupe_factor"] = examples.dupe_factor;
    ex["do_whole_word_mask"] = examples.do_whole_word_mask;
    ex["chinese_whole_word"] = examples.chinese_whole_word;
    ex["random_next_window"] = examples.random_next_window;
    ex["compat"] = examples.google_compat ? Json("google") : Json(nullptr);
  }
  j["output"] = {
      {"path", output.path},
      {"format", OutputFormatName(output.format)},
      {"shard_size", output.shard_size},
  };
  j["job"] = {
      {"task_size", job.task_size},         {"store", job.store},
      {"lease_seconds", job.lease_seconds}, {"max_attempts", job.max_attempts},
      {"max_expiries", job.max_expiries},
  };
  // Keys are sorted (nlohmann::json objects are ordered maps). Strings from ParseJobSpec and
  // FromJson are valid UTF-8; `replace` only keeps ToJson from throwing on hand-made specs.
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

StatusOr<JobSpec> JobSpec::FromJson(std::string_view json) {
  const Json root = Json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) {
    return Status::InvalidArgument(
        "job spec JSON: not valid JSON; the job store may be damaged: plan the job again");
  }
  try {
    return JsonSpecReader(root).Read();
  } catch (const std::exception& e) {
    return Status::InvalidArgument(std::string("job spec JSON: ") + e.what());
  }
}

StatusOr<JobSpec> ParseJobSpec(std::string_view toml_text, std::string_view file_name) {
  return TomlSpecParser(toml_text, file_name).Parse();
}

StatusOr<JobSpec> LoadJobSpec(const std::string& path) {
  constexpr uint64_t kMaxJobFileBytes = 1 << 20;
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    return Status::NotFound("job file " + path + " not found; check the path");
  }
  if (std::filesystem::is_directory(status)) {
    return Status::InvalidArgument(path + " is a folder; give the job file (a .toml file)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::IoError("cannot open job file " + path + ": " + std::strerror(errno));
  }
  std::string text;
  char buf[8192];
  while (in.read(buf, sizeof(buf)) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxJobFileBytes) {
      return Status::InvalidArgument(path +
                                     " is larger than 1 MiB; a job file is a small TOML "
                                     "file (see docs/job-file.md)");
    }
  }
  if (in.bad()) {
    return Status::IoError("cannot read job file " + path + ": " + std::strerror(errno));
  }
  return ParseJobSpec(text, path);
}

}  // namespace tokenmill
