// apps/lda/checkpoint.cpp — LDA's checkpoint parts (token topics, totals, kept blocks) and the start a resume rebuilds from them.
#include "lda/checkpoint.hpp"

#include <cstring>
#include <string>

#include "gyre/checkpoint/part_bytes.hpp"
#include "gyre/model/row_blocks.hpp"
#include "lda/word_topic_block.hpp"

namespace gyre::lda {
namespace {

using checkpoint::StateReader;
using checkpoint::StateWriter;

// Version 2 keeps every block packed (word_topic_block.hpp); version 1 kept them dense, rows of
// K counts padded to 8, and is packed as it is read.
constexpr std::uint32_t kPartVersion = 2;
constexpr std::uint32_t kDenseBlocksVersion = 1;

std::vector<std::byte> encode_part(const LdaKernel& kernel, std::span<const model::Block* const> held) {
  StateWriter out;
  out.put(kPartVersion);
  out.put(kernel.topics());
  // A token's topic in 16 bits when K ≤ 65 535 (as the sampler keeps it), else 32.
  if (kernel.topics() <= 0xFFFF)
    out.put_all(kernel.narrow_assignments());
  else
    out.put_all(kernel.assignments());
  out.put_all(kernel.topic_totals());
  out.put<std::uint64_t>(held.size());
  for (const model::Block* b : held) {
    out.put(static_cast<std::uint32_t>(b->id()));
    if (b->packed()) {
      out.put_all(b->words());
    } else {  // a replica of the allreduce model
      const model::Block packed = pack_block(*b, kernel.topics(), SIZE_MAX);
      out.put_all(packed.words());
    }
  }
  return std::move(out.bytes());
}

}  // namespace

void take_checkpoints(const LdaPlan& plan, const checkpoint::CheckpointTarget& target, rotation::PhasePolicy& policy,
                      rotation::RotationOptions& options, std::function<const LdaKernel&(int worker)> kernel_of) {
  if (!target.store) return;
  auto c = std::make_shared<checkpoint::EpochCheckpoints>(target);
  c->first_epoch = plan.config.start ? plan.config.start->epoch : 0;
  c->leading_phases = plan.config.start ? 0 : 1;  // a fresh run's first phase initialises
  c->last_epoch = plan.config.epochs;
  c->workers = plan.config.workers;
  c->first_phase = plan.config.start ? static_cast<std::uint64_t>(plan.config.start->epoch) + 1 : 0;
  checkpoint::take_checkpoints(
      c,
      [kernel_of = std::move(kernel_of)](int worker, std::span<const model::Block* const> held) {
        return encode_part(kernel_of(worker), held);
      },
      [](std::uint64_t next) { return "{\"next_phase\":" + std::to_string(next) + "}"; }, policy, options);
}

std::shared_ptr<const LdaStart> read_checkpoint(const checkpoint::Found& found, std::uint32_t topics,
                                                const std::function<bool(int worker)>& hosted) {
  auto start = std::make_shared<LdaStart>();
  start->epoch = static_cast<int>(found.manifest.epoch);
  start->topics.resize(static_cast<std::size_t>(found.manifest.ranks));
  const std::size_t stride = model::padded_width(topics);
  for (int r = 0; r < found.manifest.ranks; ++r) {
    const auto part = checkpoint::open_part(found, r);
    StateReader in = part.reader();
    const auto version = in.get<std::uint32_t>();
    if (version != kPartVersion && version != kDenseBlocksVersion) in.fail("a gyre-lda checkpoint part of version 1 or 2");
    if (in.get<std::uint32_t>() != topics) in.fail(std::to_string(topics) + " topics (this run's --topics)");
    std::vector<std::uint32_t> z;
    if (topics <= 0xFFFF) {
      const auto narrow = in.get_all<std::uint16_t>();
      if (hosted(r)) z.assign(narrow.begin(), narrow.end());
    } else {
      z = in.get_all<std::uint32_t>();
    }
    if (hosted(r)) start->topics[static_cast<std::size_t>(r)] = std::move(z);
    auto totals = in.get_all<std::int64_t>(topics, "topic totals");
    if (r == 0) start->topic_totals = std::move(totals);
    const auto blocks = in.get<std::uint64_t>();
    for (std::uint64_t b = 0; b < blocks; ++b) {
      const auto id = in.get<std::uint32_t>();
      std::vector<std::uint32_t> words;
      if (version == kDenseBlocksVersion) {
        const auto counts = in.get_all<std::int32_t>();
        if (counts.size() % stride != 0) in.fail("blocks of rows of " + std::to_string(stride) + " counts");
        model::Block dense(id, counts.size() / stride, stride);
        std::copy(counts.begin(), counts.end(), dense.counts());
        try {
          const auto packed = pack_block(dense, topics, SIZE_MAX);
          words.assign(packed.words().begin(), packed.words().end());
        } catch (const std::invalid_argument& e) {
          in.fail(std::string("counts that are not negative (") + e.what() + ")");
        }
      } else {
        words = in.get_all<std::uint32_t>();
      }
      if (id >= start->block_counts.size()) {
        if (id > (1u << 24)) in.fail("a block id below 2^24");
        start->block_counts.resize(id + 1);
      }
      if (!start->block_counts[id].empty()) in.fail("block " + std::to_string(id) + " in one part only");
      start->block_counts[id] = std::move(words);
    }
    in.finish();
  }
  return start;
}

}  // namespace gyre::lda
