// apps/lda/infer_command.cpp — gyre-lda infer: read a model and a corpus, fold every document in, write its topic proportions.
#include "infer_command.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>

#include "app/command_line.hpp"
#include "app/entry_point.hpp"
#include "corpus_flags.hpp"
#include "gyre/base/limits.hpp"
#include "gyre/base/output_check.hpp"
#include "gyre/base/output_directory.hpp"
#include "gyre/base/output_file.hpp"
#include "gyre/base/thread_arena.hpp"
#include "lda/inference.hpp"
#include "lda/model_io.hpp"
#include "lda/vocabulary_map.hpp"

namespace gyre::lda {
namespace {

const DirectoryKind& inference_directory() {
  static const DirectoryKind kind = DirectoryKind::of_files("gyre-lda infer output", {"doc_topics.tsv"});
  return kind;
}

int infer_command(int argc, char** argv) {
  CLI::App app{"gyre-lda infer: topic proportions of new documents under a model written by gyre-lda --out.\n"
               "Writes DIR/doc_topics.tsv: 'doc_id<TAB>θ_0<TAB>…<TAB>θ_{K-1}' per input document, in input order.",
               "gyre-lda infer"};
  std::string model_dir, corpus_path, out_dir, format = "auto", vocab_path, stop_words = "default";
  int sweeps = 20;
  std::uint64_t seed = 1;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  app.add_option("--model,-m", model_dir, "model directory written by gyre-lda --out")->required();
  app.add_option("--corpus", corpus_path,
                 "documents in any format gyre-lda trains on; text is matched to the model's words by spelling, "
                 "word ids (uci, docword) must be the model's vocabulary")
      ->required();
  app.add_option("--out,-o", out_dir, "directory for doc_topics.tsv")->required();
  app.add_option("--format", format, "input format")->check(CLI::IsMember({"auto", "uci", "text", "docword"}))
      ->capture_default_str();
  app.add_option("--vocab", vocab_path, "vocabulary file, one word per line (uci, docword)");
  app.add_option("--stop-words", stop_words, "text input: 'default' (English list), 'none', or a file")
      ->capture_default_str();
  app.add_option("--sweeps", sweeps, "Gibbs sweeps per document against the fixed model")
      ->capture_default_str()->check(CLI::Range(0, 100000));
  app.add_option("--threads,-t", threads, "threads (default: all cores)")->check(CLI::Range(1, kMaxThreads));
  app.add_option("--seed", seed, "seed of the sweeps (the output is the same for any --threads)")->capture_default_str();
  if (const auto exit_code = app::parse_command_line(app, argc, argv)) return *exit_code;

  return app::run_entry_point("gyre-lda infer", [&] {
    const std::filesystem::path stop_file = stop_words == "default" || stop_words == "none" ? "" : stop_words;
    const OutputSpec outputs[] = {{"--out", out_dir, &inference_directory()}};
    const std::filesystem::path inputs[] = {model_dir, corpus_path, vocab_path, stop_file};
    check_outputs(outputs, inputs);
    LdaModel model = read_model(model_dir);
    // The documents are parsed, then sampled, on --threads threads.
    ThreadArena arena(threads);
    data::CorpusOptions options = corpus_options(format, vocab_path, stop_words);
    options.threads = static_cast<std::size_t>(threads);
    MappedCorpus documents;
    arena.execute([&] { documents = load_onto_vocabulary(corpus_path, options, model.vocab); });
    const FixedTopics topics(model.topics, model.alpha, model.beta, model.word_topic);
    model.word_topic = TopicCountRows{};  // φ̂ holds what inference needs of it
    std::vector<double> theta;
    arena.execute([&] { theta = infer_topic_proportions(topics, documents.corpus, sweeps, seed); });

    OutputDirectory directory(out_dir, inference_directory());
    {
      OutputFile out(directory.staging() / "doc_topics.tsv");
      std::string line;
      char value[32];
      for (std::uint64_t d = 0; d < documents.corpus.docs(); ++d) {
        line = std::to_string(documents.corpus.doc_ids[d]);
        for (std::uint32_t k = 0; k < model.topics; ++k) {
          std::snprintf(value, sizeof value, "\t%.6g", theta[d * model.topics + k]);
          line += value;
        }
        line.push_back('\n');
        out.stream() << line;
      }
      out.commit();
    }
    directory.commit();
    std::fprintf(stderr,
                 "gyre-lda infer: %llu documents, %llu tokens folded in, %llu tokens of words the model does not "
                 "know skipped\n",
                 static_cast<unsigned long long>(documents.corpus.docs()),
                 static_cast<unsigned long long>(documents.corpus.tokens()),
                 static_cast<unsigned long long>(documents.unknown_tokens));
    return 0;
  });
}

}  // namespace

std::optional<int> run_infer_command(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) != "infer") return std::nullopt;
  // The subcommand's own parser sees "gyre-lda infer" as its program name.
  return infer_command(argc - 1, argv + 1);
}

}  // namespace gyre::lda
