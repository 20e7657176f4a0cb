// gyre/mapreduce/mapreduce.hpp — the map-reduce engine: typed distributed collections over the runtime, Owl Actor's verbs.
//
//   gyre::mapreduce::run(job, [&](gyre::mapreduce::Context& ctx) {
//     auto lines = gyre::mapreduce::load(ctx, "corpus/");             // byte-range splits
//     auto words = lines.flatmap<std::pair<std::string, std::uint64_t>>(
//         [](const std::string& line, auto emit) { /* emit({word, 1}) per word */ });
//     auto counts = gyre::mapreduce::reduce_by_key(std::move(words), std::plus<>{});
//     auto all = gyre::mapreduce::collect(counts);                      // on rank 0
//   });
#pragma once

#include "gyre/mapreduce/aggregate.hpp"
#include "gyre/mapreduce/codec.hpp"
#include "gyre/mapreduce/collection.hpp"
#include "gyre/mapreduce/context.hpp"
#include "gyre/mapreduce/job.hpp"
#include "gyre/mapreduce/keyed.hpp"
#include "gyre/mapreduce/range_parse.hpp"
#include "gyre/mapreduce/text_io.hpp"
