// apps/mf/mf/split_input.hpp — one process of a job reads its byte range of a ratings file, and the ranks exchange the ratings to the shards that own them.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "gyre/data/byte_ranges.hpp"

#include "gyre/runtime/job.hpp"
#include "mf/input.hpp"

namespace gyre::mf {

// This process (rank `backend.launch.rank` of `backend.launch.size`) reads only the lines of
// `train` that start in its byte range [r·N/P, (r+1)·N/P) (and the first lines of every file,
// for its format), plus the whole `test` file. `train` is a file or a directory of them, laid
// end to end in name order as read_ratings_input reads them. Then, over a map-reduce job of the
// same processes, the ranks agree on the ids, place every user as shard_by_user would and send each rating to the
// rank whose shard holds its user. The result is the one load_input gives reading the whole
// input with P workers, bit for bit: the same dense ids, this rank's shard in file order, the
// same statistics (the other shards empty). A bad line is the serial reader's first error, at
// its true line number in its file: the rank that holds it throws it, and the others stop with
// the job. `reads`: what every rank read of `train` (its lines' bytes and count, with the header
// of each file whose first byte is in its range), in rank order.
TrainingInput load_split_input(const std::filesystem::path& train, const std::filesystem::path& test,
                               std::size_t threads, const runtime::ProcessesBackend& backend,
                               std::vector<data::SplitStats>* reads = nullptr);

// A process of a job knows each item's ratings count but not its sum (what settle_biases
// decides by): the ranks add their shards' (in.shards[rank]) here, in rank order, over a
// map-reduce job of the same processes (collective: every rank calls it). Each rank holds every
// rank's sums for a moment: 8 bytes an item a process.
void gather_item_sums(TrainingInput& in, const runtime::ProcessesBackend& backend);

}  // namespace gyre::mf
