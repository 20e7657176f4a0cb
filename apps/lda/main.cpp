// apps/lda/main.cpp — gyre-lda: topic models by collapsed Gibbs sampling from the command line (thin wrapper over gyre::lda).
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>

extern char** environ;

#include "app/cluster_flags.hpp"
#include "app/command_line.hpp"
#include "app/entry_point.hpp"
#include "app/checkpoint_flags.hpp"
#include "app/job_settings.hpp"
#include "app/memory_budget.hpp"
#include "gyre/base/limits.hpp"
#include "gyre/base/output_check.hpp"
#include "gyre/cluster/launch.hpp"
#include "gyre/data/corpus_io.hpp"
#include "gyre/data/corpus_partition.hpp"
#include "gyre/model/block.hpp"
#include "gyre/report/metrics_log.hpp"
#include "gyre/report/progress.hpp"
#include "corpus_flags.hpp"
#include "lda/corpus_input.hpp"
#include "lda/split_corpus.hpp"
#include "export_command.hpp"
#include "infer_command.hpp"
#include "lda/checkpoint.hpp"
#include "lda/distributed.hpp"
#include "lda/heldout.hpp"
#include "lda/model_io.hpp"
#include "lda/trainer.hpp"
#include "lda/vocabulary_map.hpp"
#include "lda/warm_start.hpp"

namespace {

std::string format_report(const gyre::lda::EpochReport& r) {
  char line[200];
  const int n = std::snprintf(line, sizeof line, "epoch %3d  %8.2fs  loglik/token %.5f  %.3gM tokens/s", r.epoch,
                              r.seconds, r.loglik_per_token, r.tokens_per_s / 1e6);
  if (r.heldout_perplexity)
    std::snprintf(line + n, sizeof line - static_cast<std::size_t>(n), "  heldout_perplexity %.6g", *r.heldout_perplexity);
  return line;
}

// What a token costs at the peak: its topic in both orders, its position and rank in the cell
// grid and its position by slot (16 bytes); then either its word (4 bytes, held while the
// layout is built) or, from the first sweep on, its share of the Metropolis-Hastings state of
// the cells running at once (a topic and mh_steps proposals per token of each group's cell:
// 2 · (1 + M) / G bytes, G ≥ 2, so at most 1 + M); and a margin for the documents' bounds and
// scratch (2). The sparse doc-topic output (at most 6) is built once the index is freed, so it
// adds nothing. 23 at the default 4 steps; 20-21 measured (peak RSS less the counts, 20M
// tokens, K = 100 and 1000, 2026-11-27).
std::uint64_t bytes_per_token(int mh_steps) {
  return 16 + std::max<std::uint64_t>(4, 1 + static_cast<std::uint64_t>(mh_steps)) + 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gyre;
  app::use_one_malloc_arena();
  if (const auto exit_code = lda::run_infer_command(argc, argv)) return *exit_code;
  if (const auto exit_code = lda::run_export_command(argc, argv)) return *exit_code;
  CLI::App app{"gyre-lda: LDA topic models by collapsed Gibbs sampling, with rotating word-topic blocks or replicas.\n"
               "Defaults run one process on all cores: gyre-lda --corpus DIR --topics 100 --out model/\n"
               "Using a model: gyre-lda infer --help, gyre-lda export --help"};
  std::string test_path, init_model;
  int fold_in_sweeps = lda::kDefaultFoldInSweeps;
  std::string corpus_path, format = "auto", vocab_path, stop_words = "default", out_dir, metrics_path;
  std::uint64_t min_count = 1;
  std::size_t top = 10;
  lda::LdaConfig c;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::optional<int> workers;
  int threads = 0;
  std::string ring = "fixed", model_name = "rotation";
  bool quiet = false;

  app.add_option("--corpus", corpus_path,
                 "UCI bag-of-words (directory or docword.*.txt), one document per line of text (with --format "
                 "text also a directory of text files), 'docid word:count ...' lines, or a gyre-partition corpus "
                 "directory")
      ->required();
  app.add_option("--test", test_path,
                 "held-out documents (any corpus format, read on the training vocabulary: unknown words skipped); "
                 "their document-completion perplexity is reported per epoch");
  app.add_option("--fold-in-sweeps", fold_in_sweeps,
                 "--test: Gibbs sweeps folding in the tokens at even positions of each held-out document")
      ->capture_default_str()->check(CLI::Range(0, 100000));
  app.add_option("--init-model", init_model,
                 "continue from a model written by gyre-lda --out: every document is folded in against its topics "
                 "for the starting state (K, alpha and beta default to the model's; words it lacks start from "
                 "their document's topics)");
  app.add_option("--format", format, "input format")->check(CLI::IsMember({"auto", "uci", "text", "docword"}))
      ->capture_default_str();
  app.add_option("--vocab", vocab_path, "vocabulary file, one word per line (uci, docword)");
  app.add_option("--stop-words", stop_words, "text input: 'default' (English list), 'none', or a file")
      ->capture_default_str();
  app.add_option("--min-count", min_count, "text input: drop words seen fewer times")->capture_default_str();
  app.add_option("--topics,-k", c.topics, "number of topics K")->capture_default_str()->check(CLI::Range(1u, lda::kMaxTopics));
  app.add_option("--alpha", c.alpha, "doc-topic prior (default 50/K)")->check(app::non_negative_number());
  app.add_option("--beta", c.beta, "topic-word prior")->capture_default_str()->check(app::positive_number());
  app.add_option("--epochs,-e", c.epochs, "Gibbs sweeps over the corpus")->capture_default_str()->check(CLI::Range(0, 1'000'000));
  app.add_option("--mh-steps", c.mh_steps,
                 "Metropolis-Hastings steps per token and sweep: this many word proposals, then as many doc "
                 "proposals (2 samples about 1.5x as many tokens a second, for less progress a sweep)")
      ->capture_default_str()->check(CLI::Range(1, 64));
  app.add_option("--workers,-p", workers, "rotation workers P (default: 1, or the number of processes)")
      ->check(CLI::Range(1, kMaxWorkers));
  app.add_option("--threads,-t", threads, "threads per worker T (default: all cores / P)")->check(CLI::Range(1, kMaxThreads));
  app.add_option("--depth,-d", c.depth, "pipeline depth d: word blocks in flight per worker")
      ->capture_default_str()->check(CLI::Range(1, kMaxDepth));
  app.add_option("--blocks-per-worker,-m", c.blocks_per_worker, "m: P·m word blocks (default: d)")
      ->check(CLI::Range(1, kMaxDepth));
  app.add_option("--ring", ring, "ring order per epoch")->check(CLI::IsMember({"fixed", "random"}))->capture_default_str();
  app.add_option("--model", model_name,
                 "Harp's computation model for the word-topic counts: A|locking (one copy at the lock service, any "
                 "free block taken), B|rotation (blocks travel the ring), "
                 "C|allreduce (a replica per worker, changes summed --syncs-per-epoch times an epoch), "
                 "D|nosync (a replica per worker, changes pushed --syncs-per-epoch times an epoch and added as they "
                 "arrive)")
      ->capture_default_str()
      ->transform(app::one_spelling(lda::parse_computation_model, lda::name_of, "A|locking|B|rotation|C|allreduce|D|nosync"));
  app.add_option("--syncs-per-epoch", c.syncs_per_epoch,
                 "allreduce and nosync models: sub-epochs per epoch, each sampling 1/S of every worker's tokens, then "
                 "summing (nosync: pushing)")
      ->capture_default_str()->check(CLI::Range(1, lda::kMaxSyncsPerEpoch));
  app.add_option("--seed", c.seed, "seed of the initial topics and the sampler")->capture_default_str();
  const std::map<std::string, lda::InitialTopics> initial_topics_named{
      {"auto", lda::InitialTopics::kAuto}, {"document", lda::InitialTopics::kDocument}, {"token", lda::InitialTopics::kToken}};
  app.add_option("--initial-topics", c.initial_topics,
                 "a fresh run's start: 'token' (each token's topic uniform, the textbook start), 'document' (each "
                 "document's tokens in one topic drawn for it: far fewer sweeps to a given quality where alpha*K is "
                 "large, slower or worse where it is small) or 'auto' (document where alpha*K >= 10, as at the default "
                 "alpha, else token; docs/cli/gyre-lda.md)")
      ->transform(CLI::CheckedTransformer(initial_topics_named))
      ->default_str("auto");
  app.add_option("--out,-o", out_dir, "directory for model.json, word_topic.tsv, doc_topic.tsv, topics.txt (across processes: every rank writes its part, *.part-R.tsv)");
  app.add_option("--metrics", metrics_path,
                 "JSON lines, one per epoch: epoch, seconds, loglik_per_token, tokens_per_s (and heldout_perplexity "
                 "with --test)");
  app.add_option("--top-words", top, "words per topic printed at the end and written to topics.txt")
      ->capture_default_str()->check(CLI::Range(std::size_t{0}, std::size_t{100000}));
  app.add_flag("--quiet,-q", quiet, "no per-epoch lines or topics on stdout");
  std::uint64_t max_memory = 0;
  app::add_max_memory_flag(app, max_memory);
  app::CheckpointFlags checkpoints;
  checkpoints.add_to(app);
  app::ClusterFlags multi("gyre-lda");
  multi.add_to(app);
  if (const auto exit_code = gyre::app::parse_command_line(app, argc, argv)) return *exit_code;
  // The only place gyre-lda looks at the environment; the library gets explicit settings.
  const auto env = cluster::environment_of(environ);

  return app::run_entry_point("gyre-lda", [&] {
    c.model = lda::parse_computation_model(model_name);  // already checked by --model's validator
    // Refused before anything is made: the checkpoint folder is created further down.
    if (checkpoints.writes() && (c.model == lda::ComputationModel::kLocking || c.model == lda::ComputationModel::kNoSync))
      throw std::invalid_argument(
          "--checkpoint and --resume work with --model rotation and allreduce only: locking and nosync depend on timing");
    auto job = multi.job(env, workers, c.seed);  // before the corpus: a bad job is refused at once
    std::vector<std::string> local_flags{"--out",  "--metrics", "--quiet",          "--threads", "--max-memory",
                                         "--top-words", "--test", "--fold-in-sweeps"};
    const std::vector<std::string> inputs{"--corpus", "--vocab", "--stop-words", "--init-model"};
    if (job.cluster) {
      job.cluster->settings = checkpoints.shared_settings(app, local_flags, inputs);
    }
    const auto& launch = job.launch;
    const auto& cluster = job.cluster;
    const bool distributed = cluster.has_value();
    c.workers = job.workers;
    quiet = quiet || !job.reports();
    const std::filesystem::path stop_file = stop_words == "default" || stop_words == "none" ? "" : stop_words;
    {
      const OutputSpec outputs[] = {{"--out", out_dir, &lda::model_directory()}, {"--metrics", metrics_path}};
      const std::filesystem::path inputs[] = {corpus_path, vocab_path, stop_file, multi.token_file(), test_path, init_model};
      checkpoints.check_outputs_with(outputs, inputs, job.reports());
    }
    data::CorpusOptions opts = lda::corpus_options(format, vocab_path, stop_words, min_count);
    // A counts file can ask for 10^9 tokens in a few bytes: refuse it while reading, before the
    // tokens are laid out, and the whole model right after.
    opts.max_tokens = max_memory == 0 ? UINT64_MAX : max_memory / bytes_per_token(c.mh_steps);
    // Nothing else runs while the corpus is parsed, so it takes every core unless -t says otherwise.
    opts.threads = static_cast<std::size_t>(threads > 0 ? threads : cores);
    // Across processes, a file is read by byte ranges, and a partition of one shard per process
    // shard by shard.
    const data::CorpusSource source = data::corpus_source(corpus_path, opts);
    lda::CorpusInput input;
    if (distributed && source.kind != data::CorpusSource::Kind::partition) {
      std::vector<data::SplitStats> reads;
      input = lda::load_split_corpus(source, opts, *cluster, &reads);
      if (!quiet) multi.report_split_reads(reads, source.file);
    } else {
      input = lda::load_corpus_input(corpus_path, opts, distributed ? std::optional(launch.rank) : std::nullopt,
                                     c.workers);
    }
    const data::Corpus& corpus = input.corpus;  // this process's documents (all of them, but for a shard-only read)
    if (!init_model.empty()) {
      c.warm_start = lda::load_warm_start(init_model, corpus, !data::reads_as_text(corpus_path, opts), corpus_path);
      if (app.count("--topics") > 0 && c.topics != c.warm_start->topics())
        throw std::invalid_argument("--topics " + std::to_string(c.topics) + ", but the model in " + init_model +
                                    " has " + std::to_string(c.warm_start->topics()) + " topics");
      c.topics = c.warm_start->topics();
      if (app.count("--alpha") == 0) c.alpha = c.warm_start->alpha();
      if (app.count("--beta") == 0) c.beta = c.warm_start->beta();
    }
    // The allreduce and nosync models add two copies of the word-topic counts per worker in this process
    // (its replica, and the replica as the sub-epoch began); the locking model one, dense, at the
    // lock service (runtime::Job deals the roles out from process 0: the scheduler, then the
    // service, beside worker 1), and at most as much again in the blocks its workers hold.
    const bool hosts_lock_service = !distributed || launch.rank == (c.workers > 1 ? 1 : 0);
    const std::uint64_t replicas = lda::replicated(c.model) ? 2 * (distributed ? 1 : c.workers)
                                   : c.model == lda::ComputationModel::kLocking ? (hosts_lock_service ? 2 : 1)
                                                                                 : 0;
    // Across processes rank 0 gathers every document's sparse doc-topic row: at most 6 bytes a
    // token and 12 a document, as the encoded body and as the rows decoded from it.
    const std::uint64_t gathered_rows = distributed ? 2 * (input.tokens * 6 + input.docs * 12) : 0;
    // The word-topic blocks travel packed: at most 4 bytes a word and 8 a token of the corpus
    // (lda/word_topic_block.hpp), and a visit walks the rows of frequent words in dense copies,
    // at most 16 bytes a token.
    const std::uint64_t packed_blocks =
        std::min(std::uint64_t{corpus.vocab_size()} * (4 + 4 * std::uint64_t{c.topics}),
                 4 * std::uint64_t{corpus.vocab_size()} + 8 * input.tokens);
    app::require_memory(corpus.tokens() * bytes_per_token(c.mh_steps) + gathered_rows + packed_blocks +
                            16 * corpus.tokens() +
                            replicas * corpus.vocab_size() * model::padded_width(c.topics) * sizeof(std::int32_t),
                        max_memory,
                        "LDA with " + std::to_string(c.topics) + " topics over " + std::to_string(corpus.tokens()) +
                            " tokens, " + std::to_string(corpus.vocab_size()) + " words and " +
                            std::to_string(corpus.docs()) + " documents");
    if (static_cast<std::uint64_t>(c.workers) > input.docs)
      throw std::invalid_argument(std::to_string(c.workers) + " workers but " + corpus_path + " has only " +
                                  std::to_string(input.docs) + " documents: at most one worker per document");
    // A rank of a multi-process job is taken to have its host's cores to itself, as in gyre-mf.
    c.threads = threads > 0 ? threads : std::max(1, distributed ? cores : cores / c.workers);
    // What a checkpoint records of this run and a resume compares: the flags that shape the
    // result and the inputs' digests.
    checkpoint::CheckpointTarget checkpoint_target;
    std::optional<std::uint64_t> resumed_epoch;
    if (checkpoints.writes()) {
      auto settings = checkpoints.recorded_settings(app, local_flags, inputs);
      checkpoint_target = {checkpoints.store(), checkpoints.every(), std::move(settings)};
    }
    if (checkpoints.resumes()) {
      const auto found = checkpoints.find(checkpoint_target.settings, c.workers, "gyre-lda");
      c.start = lda::read_checkpoint(found, c.topics, [&](int worker) { return !distributed || worker == launch.rank; });
      resumed_epoch = found.manifest.epoch;
      if (!quiet) std::printf("gyre-lda: resuming after epoch %d from %s\n", c.start->epoch, found.directory.string().c_str());
    }
    checkpoints.prepare(resumed_epoch, launch.rank == 0);
    if (job.cluster)
      job.cluster->settings.emplace_back("resumed after epoch", resumed_epoch ? std::to_string(*resumed_epoch) : "none");
    c.ring = ring == "random" ? rotation::RingOrder::kRandom : rotation::RingOrder::kFixed;
    if (!quiet) {
      std::printf("gyre-lda: %llu documents, %llu tokens, vocabulary %u, K=%u, P=%d T=%d d=%d B=%d",
                  static_cast<unsigned long long>(input.docs), static_cast<unsigned long long>(input.tokens),
                  corpus.vocab_size(), c.topics, c.workers, c.threads, c.depth, c.workers * c.group_size());
      if (c.model == lda::ComputationModel::kAllreduce) std::printf(", allreduce model, S=%d", c.syncs_per_epoch);
      if (c.model == lda::ComputationModel::kNoSync) std::printf(", nosync model, S=%d", c.syncs_per_epoch);
      if (c.model == lda::ComputationModel::kLocking) std::printf(", locking model");
      std::printf("\n");
    }
    std::optional<lda::HeldoutSet> heldout;
    // Held-out documents are rank 0's business only (it alone reports and holds the final model).
    if (!test_path.empty() && job.reports()) {
      data::CorpusOptions test_opts = lda::corpus_options("auto", "", stop_words);
      test_opts.max_tokens = opts.max_tokens;
      auto test = lda::load_onto_vocabulary(test_path, test_opts, corpus.vocab);
      const std::uint64_t unknown = test.unknown_tokens;
      heldout.emplace(std::move(test.corpus), fold_in_sweeps, c.seed);
      if (!quiet)
        std::printf("held-out: %llu documents, %llu tokens to predict, %llu tokens of words not in the training "
                    "vocabulary skipped\n",
                    static_cast<unsigned long long>(heldout->documents().docs()),
                    static_cast<unsigned long long>(heldout->predicted_tokens()),
                    static_cast<unsigned long long>(unknown));
    }

    // Only rank 0 sees the epochs and the model, so only it writes the files.
    std::unique_ptr<report::MetricsLog> metrics;
    if (!metrics_path.empty() && launch.rank == 0) metrics = std::make_unique<report::MetricsLog>(metrics_path);
    report::Progress progress(stderr, !quiet && report::Progress::is_terminal(stderr));
    lda::TrainHooks hooks;
    hooks.checkpoints = checkpoint_target;
    hooks.on_epoch = [&](const lda::EpochReport& r) {
      if (metrics) {
        nlohmann::json line = {{"epoch", r.epoch},
                               {"seconds", r.seconds},
                               {"loglik_per_token", r.loglik_per_token},
                               {"tokens_per_s", r.tokens_per_s}};
        if (r.heldout_perplexity) line["heldout_perplexity"] = *r.heldout_perplexity;
        metrics->write(line);
      }
      if (!quiet) progress.print(format_report(r));
      progress.update(r.epoch, c.epochs, "sampling");
      checkpoints.kill_if_due(r.epoch);
    };
    progress.update(0, c.epochs, "initialising");
    std::optional<lda::LdaModel> trained;
    // Across processes no rank holds the whole model between epochs: the gathered one is evaluated.
    if (heldout && !cluster) hooks.heldout = &*heldout;
    std::vector<std::vector<std::string>> top_of_parts;
    if (cluster) {
      hooks.on_traffic = multi.traffic_reporter(launch);
      // Every rank writes its own part of the model, and none gathers it; the held-out
      // evaluation of the final model needs it in one place, and still gathers it at rank 0.
      if (!out_dir.empty() && !heldout) hooks.parts = lda::TrainHooks::Parts{out_dir, top, &top_of_parts};
      trained = lda::train_distributed(c, std::move(input), hooks, *cluster);
    } else {
      auto shards = data::shard_corpus(input.corpus, static_cast<std::uint32_t>(c.workers));
      input.corpus = data::Corpus{};  // the shards hold every token again: do not keep two copies
      trained = lda::train_embedded(c, std::move(shards), hooks);
    }
    progress.finish();
    const auto print_topics = [&](const std::vector<std::vector<std::string>>& words) {
      for (std::size_t k = 0; k < words.size(); ++k) {
        std::printf("topic %3zu:", k);
        for (const auto& w : words[k]) std::printf(" %s", w.substr(0, w.rfind(':')).c_str());
        std::printf("\n");
      }
    };
    if (!trained) {  // written in parts, or gathered at rank 0
      if (!quiet && !top_of_parts.empty()) print_topics(top_of_parts);
      if (metrics) metrics->finish();
      return 0;
    }
    const lda::LdaModel& model = *trained;
    if (heldout && cluster) {
      const lda::FixedTopics topics(model.topics, model.alpha, model.beta, model.word_topic);
      std::printf("held-out perplexity of the final model: %.6g\n",
                  heldout->perplexity(topics, static_cast<std::uint64_t>(c.epochs)));
    }
    if (!quiet) print_topics(lda::top_words(model, top));
    if (!out_dir.empty()) lda::write_model(out_dir, model, top);
    if (metrics) metrics->finish();
    return 0;
  });
}
