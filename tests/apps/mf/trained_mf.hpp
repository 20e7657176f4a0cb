// tests/apps/mf/trained_mf.hpp — an MF model trained in-process, kept with the report of every epoch.
#pragma once

#include <vector>

#include "mf/trainer.hpp"

namespace gyre::test {

struct TrainedMf {
  mf::MfModel model;
  std::vector<mf::EpochReport> epochs;
};

}  // namespace gyre::test
