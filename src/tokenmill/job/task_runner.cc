#include "tokenmill/job/task_runner.h"

#include "tokenmill/examples/example_builder.h"
#include "tokenmill/io/document_reader.h"
#include "tokenmill/storage/storage.h"

namespace tokenmill {

ReaderOptions ReaderOptionsFor(const JobSpec& spec, const Tokenizer& tokenizer) {
  ReaderOptions options = spec.reader;
  options.invalid_utf8 = tokenizer.kind() != TokenizerKind::kWordPiece
                             ? InvalidUtf8::kReplace
                             : InvalidUtf8::kDrop;
  return options;
}

StatusOr<TaskResult> RunTask(const JobSpec& spec, const Tokenizer& tokenizer, const TaskDef& task,
                             const std::string& scratch_dir, const CancelCheck& cancelled,
                             const ProgressCallback& progress) {
  TM_ASSIGN_OR_RETURN(Storage * storage, StorageFor(task.url));
  InputRange range{task.url, task.begin, task.compressed ? kToEnd : task.end};
  TM_ASSIGN_OR_RETURN(auto reader,
                      OpenDocumentReader(*storage, range, ReaderOptionsFor(spec, tokenizer)));

  ExampleOptions example_options = spec.examples;
  example_options.eod_first = spec.output.format == OutputFormat::kLlmc;
  TM_ASSIGN_OR_RETURN(auto builder, CreateExampleBuilder(example_options, tokenizer, task.id));

  ShardWriterOptions writer_options;
  writer_options.format = spec.output.format;
  writer_options.shard_size = spec.output.shard_size;
  writer_options.task_id = task.id;
  writer_options.scratch_dir = scratch_dir;
  writer_options.vocab_size = tokenizer.vocab_size();
  writer_options.eod_id = tokenizer.specials().eod.value_or(0);
  TM_ASSIGN_OR_RETURN(auto writer, CreateShardWriter(writer_options));

  ContentStatsCollector content(tokenizer.vocab_size());
  builder->set_token_observer(&content);
  const ExampleSink sink = [&](const Example& e) {
    content.AddExample(e.num_real_tokens);
    return writer->Add(e);
  };
  auto run = [&]() -> Status {
    Document doc;
    uint64_t n = 0;
    for (;;) {
      TM_ASSIGN_OR_RETURN(bool more, reader->Next(&doc));
      if (!more) break;
      const uint64_t tokens_before = builder->stats().tokens;
      TM_RETURN_IF_ERROR(builder->AddDocument(doc.text, sink));
      content.AddDocument(doc.text, builder->stats().tokens - tokens_before);
      if ((++n & 63) == 0) {
        if (cancelled && cancelled()) return Status::Cancelled("task stopped");
        if (progress) progress(reader->stats().bytes_in);
      }
    }
    return builder->Finish(sink);
  };
  Status status = run();
  if (!status.ok()) {
    writer->Abandon();
    if (status.Is(StatusCode::kCancelled)) return status;
    return status;
  }
  TaskResult result;
  TM_ASSIGN_OR_RETURN(result.shards, writer->Finish());
  if (progress) progress(reader->stats().bytes_in);
  const ReaderStats& rs = reader->stats();
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
  result.stats.bytes_in = task.end - task.begin;  // raw bytes of the task: deterministic
  result.content = content.Finish(builder->kind_counters());
  return result;
}

}  // namespace tokenmill
