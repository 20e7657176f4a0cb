// apps/mf/mf/cell_order.hpp — a cell's ratings in (user, item, value) order, by counting sorts.
#pragma once

#include <span>

#include "mf/worker_ratings.hpp"

namespace gyre::mf {

// Orders `cell` by user, then item, then value: the order std::sort with that comparison gives
// (ratings equal in all three are interchangeable). A cell's ids span its group's users and its
// block's rows, so two counting sorts (by item, then stably by user) do it in linear time, and
// the rare runs of one (user, item) are then sorted by value; a cell whose id ranges dwarf its
// size is sorted by comparison instead. The training setup spent a fifth of a one-epoch run in
// std::sort here.
void sort_cell(std::span<LocalRating> cell);

}  // namespace gyre::mf
