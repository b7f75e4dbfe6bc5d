#include "tokenmill/job/task_runner.h"

#include <algorithm>
#include <utility>

#include "tokenmill/base/byte_count.h"
#include "tokenmill/examples/example_builder.h"
#include "tokenmill/io/document_reader.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill {

ReaderOptions ReaderOptionsFor(const JobSpec& spec, const Tokenizer& tokenizer) {
  ReaderOptions options = spec.reader;
  options.invalid_utf8 =
      tokenizer.kind() != TokenizerKind::kWordPiece ? InvalidUtf8::kReplace : InvalidUtf8::kDrop;
  return options;
}

namespace {

// The inputs of a task, in order: its range, then the whole objects that follow it.
std::vector<InputRange> TaskInputs(const TaskDef& task) {
  std::vector<InputRange> inputs;
  inputs.push_back({task.url, task.begin, task.compressed ? kToEnd : task.end});
  for (const TaskInput& in : task.following) inputs.push_back({in.url, 0, kToEnd});
  return inputs;
}

uint64_t LastLine(const Document& doc) {
  return doc.line_number + static_cast<uint64_t>(CountByte(doc.text, '\n'));
}

void AddReaderStats(const ReaderStats& r, ReaderStats* total) {
  total->bytes_in += r.bytes_in;
  total->bytes_decoded += r.bytes_decoded;
  total->lines += r.lines;
  total->documents += r.documents;
  total->invalid_utf8_bytes += r.invalid_utf8_bytes;
  total->skipped_records += r.skipped_records;
  total->empty_documents += r.empty_documents;
}

}  // namespace

StatusOr<TaskResult> RunTask(const JobSpec& spec, const Tokenizer& tokenizer, const TaskDef& task,
                             const TaskOutput& output, const CancelCheck& cancelled,
                             const ProgressCallback& progress) {
  ExampleOptions example_options = spec.examples;
  example_options.eod_first = spec.output.format == OutputFormat::kLlmc;
  TM_ASSIGN_OR_RETURN(auto builder, CreateExampleBuilder(example_options, tokenizer, task.id));

  ShardWriterOptions writer_options;
  writer_options.format = spec.output.format;
  writer_options.shard_size = spec.output.shard_size;
  writer_options.task_id = task.id;
  writer_options.scratch_dir = output.scratch_dir;
  writer_options.write_behind = output.write_behind;
  writer_options.vocab_size = tokenizer.vocab_size();
  writer_options.eod_id = tokenizer.specials().eod.value_or(0);
  TM_ASSIGN_OR_RETURN(auto writer, CreateShardWriter(writer_options));

  ContentStatsCollector content(tokenizer.vocab_size());
  builder->set_token_observer(&content);
  uint64_t part_tokens = 0;  // of the parts of a document that comes in parts (Example::more)
  const ExampleSink sink = [&](const Example& e) {
    part_tokens += e.num_real_tokens;
    if (!e.more) {
      content.AddExample(part_tokens);
      part_tokens = 0;
    }
    return writer->Add(e);
  };
  const ReaderOptions reader_options = ReaderOptionsFor(spec, tokenizer);
  ReaderStats rs;  // of the inputs read to the end
  uint64_t fed = 0;
  auto feed = [&](const Document& doc, uint64_t bytes_in) -> Status {
    const uint64_t tokens_before = builder->stats().tokens;
    TM_RETURN_IF_ERROR(builder->AddDocument(doc.text, sink));
    content.AddDocument(doc.text, builder->stats().tokens - tokens_before);
    if ((++fed & 63) == 0) {
      if (cancelled && cancelled()) return Status::Cancelled("task stopped");
      if (progress) progress(rs.bytes_in + bytes_in);
    }
    return Status::Ok();
  };
  auto run = [&]() -> Status {
    // Each document is held until the next one is read: over several inputs (compat = "google"),
    // a text file's last document continues into the next file's first one when no blank line
    // separates them, as create_pretraining_data.py reads its input files into one list.
    // Only then: otherwise each document goes to the builder as soon as it is read (a second
    // one held would double the memory of inputs made of huge documents).
    const bool may_continue = !task.following.empty() && spec.reader.format == InputFormat::kText;
    Document held, doc;
    bool holding = false;
    bool open = false;  // the held document may continue into the next input
    for (const InputRange& range : TaskInputs(task)) {
      TM_ASSIGN_OR_RETURN(Storage * storage, StorageFor(range.url));
      TM_ASSIGN_OR_RETURN(auto reader, OpenDocumentReader(*storage, range, reader_options));
      bool first = true;
      uint64_t last_line = 0;
      for (;;) {
        TM_ASSIGN_OR_RETURN(bool more, reader->Next(&doc));
        if (!more) break;
        if (!may_continue) {
          TM_RETURN_IF_ERROR(feed(doc, reader->stats().bytes_in));
          continue;
        }
        const uint64_t doc_last_line = LastLine(doc);
        if (first && open && doc.line_number == 1) {
          held.text.push_back('\n');
          held.text.append(doc.text);
        } else {
          if (holding) TM_RETURN_IF_ERROR(feed(held, reader->stats().bytes_in));
          std::swap(held, doc);
          holding = true;
        }
        first = false;
        last_line = doc_last_line;
      }
      const ReaderStats& stats = reader->stats();
      // A blank line after the input's last document (or an input of blank lines) ends it.
      if (first) {
        open = open && stats.lines == 0;
      } else {
        open = may_continue && stats.lines == last_line;
      }
      AddReaderStats(stats, &rs);
    }
    if (holding) TM_RETURN_IF_ERROR(feed(held, 0));
    return builder->Finish(sink);
  };
  Status status = run();
  if (!status.ok()) {
    writer->Abandon();
    return status;
  }
  TaskResult result;
  TM_ASSIGN_OR_RETURN(result.shards, writer->Finish());
  if (progress) progress(rs.bytes_in);
  const BuilderStats& bs = builder->stats();
  result.stats.documents = bs.documents;
  result.stats.lines = rs.lines;
  result.stats.tokens = bs.tokens;
  result.stats.unk_tokens = bs.unk_tokens;
  result.stats.examples = bs.examples;
  result.stats.truncated_tokens = bs.truncated_tokens;
  result.stats.masked_tokens = bs.masked_tokens;
  result.stats.masked_as_mask = bs.masked_as_mask;
  result.stats.masked_as_original = bs.masked_as_original;
  result.stats.masked_as_random = bs.masked_as_random;
  result.stats.masked_words = bs.masked_words;
  result.stats.random_next = bs.random_next;
  result.stats.dropped_bytes = rs.invalid_utf8_bytes;
  result.stats.skipped_records = rs.skipped_records;
  result.stats.empty_documents = rs.empty_documents;
  result.stats.bytes_in = task.InputBytes();  // raw bytes of the task: deterministic
  result.content = content.Finish(builder->kind_counters());
  return result;
}

}  // namespace tokenmill
