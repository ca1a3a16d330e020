#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include <map>
#include <set>
#include <stdexcept>

#include "calib/heldout.hpp"

using namespace moeplan::calib;

namespace {

Measurement collective(double bytes, const char* kind, int ranks) {
  Measurement measurement;
  measurement.family = Family::collective;
  measurement.kind = kind;
  measurement.ranks = ranks;
  measurement.bytes = bytes;
  measurement.seconds = 1e-5;
  return measurement;
}

Measurement gemm(std::int64_t m, std::int64_t n, std::int64_t k) {
  Measurement measurement;
  measurement.family = Family::gemm;
  measurement.shape = {{"m", m}, {"n", n}, {"k", k}};
  measurement.seconds = 1e-5;
  return measurement;
}

}  // namespace

TEST_CASE("collectives are held out by whole message size, across every curve") {
  std::vector<Measurement> points;
  for (int size = 0; size < 9; ++size) {
    for (const char* kind : {"all_reduce", "all_to_all"}) {
      for (int ranks : {2, 4}) points.push_back(collective(1024.0 * (1 << size), kind, ranks));
    }
  }
  const std::vector<bool> held = held_out_by_shape(points);
  std::map<double, std::set<bool>> by_size;
  for (std::size_t index = 0; index < points.size(); ++index) by_size[points[index].bytes].insert(held[index]);
  for (const auto& [bytes, flags] : by_size) CHECK(flags.size() == 1);  // a size is wholly in or wholly out
  // Sizes 0..8 (1 KiB .. 256 KiB): indices 1, 4 and 7 are held out; the first and the last stay in the fit.
  CHECK(by_size[2048].count(true) == 1);
  CHECK(by_size[16384].count(true) == 1);
  CHECK(by_size[131072].count(true) == 1);
  CHECK(by_size[1024].count(false) == 1);
  CHECK(by_size[262144].count(false) == 1);
  CHECK(by_size[4096].count(false) == 1);
}

TEST_CASE("GEMMs are held out by N x K: every batch of a held-out projection goes with it") {
  std::vector<Measurement> points;
  for (std::int64_t m : {1, 64, 4096}) {
    for (auto [n, k] : {std::pair<std::int64_t, std::int64_t>{512, 7168}, {1024, 7168}, {2048, 7168}, {4096, 7168}}) {
      points.push_back(gemm(m, n, k));
    }
  }
  const std::vector<bool> held = held_out_by_shape(points);
  for (std::size_t index = 0; index < points.size(); ++index) {
    CHECK(held[index] == (points[index].dimension("n") == 1024));
  }
}

TEST_CASE("MAPE is the mean of the absolute relative errors") {
  // |11 - 10| / 10 = 0.1 and |18 - 20| / 20 = 0.1: a mean of 0.1.
  CHECK(mean_absolute_percentage_error({11, 18}, {10, 20}) == approx(0.1));
  CHECK_THROWS_AS(mean_absolute_percentage_error({1}, {1, 2}), std::invalid_argument);
}
