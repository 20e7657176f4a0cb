// gyre/net/inproc.hpp — the in-process backend: ranks are threads, links are locked queues.
#pragma once

#include <memory>
#include <vector>

#include "gyre/net/group.hpp"

namespace gyre::net {

// Creates the Groups of an n-rank job whose ranks all live in this process. Messages move
// (no copy, no encoding of the body). The groups share state; keep them all alive until every
// rank is done. Closing any group closes the whole network, as a dead process would.
std::vector<std::unique_ptr<Group>> make_inproc_groups(int size);

}  // namespace gyre::net
