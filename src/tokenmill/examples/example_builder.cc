// CreateExampleBuilder: the only switch over example kinds.
#include "tokenmill/examples/example_builder.h"

#include "tokenmill/examples/bert_builder.h"
#include "tokenmill/examples/electra_builder.h"
#include "tokenmill/examples/gpt_builder.h"

namespace tokenmill {

StatusOr<std::unique_ptr<ExampleBuilder>> CreateExampleBuilder(const ExampleOptions& options,
                                                               const Tokenizer& tokenizer,
                                                               uint64_t task_id) {
  switch (options.kind) {
    case ExampleKind::kElectra: {
      TM_ASSIGN_OR_RETURN(std::unique_ptr<ElectraBuilder> builder,
                          ElectraBuilder::Create(options, tokenizer, task_id));
      return std::unique_ptr<ExampleBuilder>(std::move(builder));
    }
    case ExampleKind::kBert: {
      TM_ASSIGN_OR_RETURN(std::unique_ptr<BertBuilder> builder,
                          BertBuilder::Create(options, tokenizer, task_id));
      return std::unique_ptr<ExampleBuilder>(std::move(builder));
    }
    case ExampleKind::kGpt: {
      // GPT examples draw no random numbers: task_id plays no part.
      TM_ASSIGN_OR_RETURN(std::unique_ptr<GptBuilder> builder,
                          GptBuilder::Create(options, tokenizer));
      return std::unique_ptr<ExampleBuilder>(std::move(builder));
    }
  }
  return Status::InvalidArgument("unknown example kind");
}

}  // namespace tokenmill
