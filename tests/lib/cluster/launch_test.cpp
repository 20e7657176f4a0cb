// tests/lib/cluster/launch_test.cpp — rank and size from flags and from each launcher's variables.
#include <doctest/doctest.h>

#include <stdexcept>

#include "gyre/cluster/launch.hpp"

using namespace gyre::cluster;

TEST_CASE("each launcher's variables give rank and size") {
  auto l = from_launcher({{"OMPI_COMM_WORLD_RANK", "2"}, {"OMPI_COMM_WORLD_SIZE", "4"}});
  REQUIRE(l);
  CHECK(l->rank == 2);
  CHECK(l->size == 4);
  CHECK(l->source == "Open MPI");
  l = from_launcher({{"PMIX_RANK", "1"}, {"PMI_SIZE", "3"}});
  REQUIRE(l);
  CHECK(l->source == "PMIx");
  CHECK(l->rank == 1);
  l = from_launcher({{"PMI_RANK", "0"}, {"PMI_SIZE", "2"}});
  REQUIRE(l);
  CHECK(l->source == "PMI");
  l = from_launcher({{"SLURM_PROCID", "7"}, {"SLURM_NTASKS", "8"}});
  REQUIRE(l);
  CHECK(l->source == "Slurm");
  CHECK(l->rank == 7);
  CHECK_FALSE(from_launcher({{"HOME", "/root"}}));
}

TEST_CASE("bad launcher variables are errors that name the variable") {
  CHECK_THROWS_WITH_AS(from_launcher({{"SLURM_PROCID", "x"}, {"SLURM_NTASKS", "2"}}), doctest::Contains("SLURM_PROCID"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(from_launcher({{"PMI_RANK", "3"}, {"PMI_SIZE", "3"}}), doctest::Contains("outside PMI_SIZE"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(from_launcher({{"OMPI_COMM_WORLD_RANK", "1"}}), doctest::Contains("OMPI_COMM_WORLD_SIZE"),
                       std::invalid_argument);
}

TEST_CASE("flags win over the launcher; nothing means one process") {
  const Environment slurm{{"SLURM_PROCID", "1"}, {"SLURM_NTASKS", "2"}};
  CHECK(resolve_launch(3, 5, slurm).rank == 3);
  CHECK(resolve_launch(3, 5, slurm).source == "flags");
  CHECK(resolve_launch(std::nullopt, std::nullopt, slurm).rank == 1);
  const auto alone = resolve_launch(std::nullopt, std::nullopt, {});
  CHECK(alone.rank == 0);
  CHECK(alone.size == 1);
  CHECK_THROWS_WITH_AS(resolve_launch(1, std::nullopt, {}),
                       "process rank and process count go together (--process-rank/--processes)",
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(resolve_launch(2, 2, {}), "process rank 2 outside 0..1", std::invalid_argument);
  CHECK_THROWS_WITH_AS(resolve_launch(0, 0, {}), doctest::Contains("process count 0"), std::invalid_argument);
}

TEST_CASE("only the variables gyre knows are taken from a process environment") {
  char a[] = "SLURM_PROCID=4";
  char b[] = "SECRET_THING=x";
  char c[] = "GYRE_TOKEN=abc=def";
  char* envp[] = {a, b, c, nullptr};
  const auto env = environment_of(envp);
  CHECK(env.size() == 2);
  CHECK(env.at("SLURM_PROCID") == "4");
  CHECK(env.at("GYRE_TOKEN") == "abc=def");
}
