// apps/common/app/export_command.hpp — `APP export`: a model written in parts by several processes, rewritten as one process's single files.
#pragma once

#include <filesystem>
#include <functional>

#include "gyre/base/output_directory.hpp"

namespace gyre::app {

// Parses `PROGRAM export --model DIR --out DIR` from argv (argv[0] is "export"), checks the
// output against the input as every tool does, and runs `copy(model, out)`. `layout` names
// the single-file layout in --help ("word_topic.tsv, doc_topic.tsv, topics.txt").
int run_export_command(int argc, char** argv, const char* program, const char* layout, const DirectoryKind& kind,
                       const std::function<void(const std::filesystem::path& model, const std::filesystem::path& out)>& copy);

}  // namespace gyre::app
