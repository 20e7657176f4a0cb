// apps/lda/export_command.cpp — gyre-lda export: a model written in parts as version 1's single files.
#include "export_command.hpp"

#include <string>

#include "app/export_command.hpp"
#include "lda/model_io.hpp"

namespace gyre::lda {

std::optional<int> run_export_command(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) != "export") return std::nullopt;
  return app::run_export_command(argc - 1, argv + 1, "gyre-lda", "word_topic.tsv, doc_topic.tsv, topics.txt",
                                 model_directory(), export_model);
}

}  // namespace gyre::lda
