// gyre/base/random.hpp — splitmix64 (step, finaliser) and the portable Random every seeded sequence in gyre is drawn from.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

namespace gyre {

// splitmix64 (Steele, Lea and Flood 2014, as in Vigna's reference code): tiny, fast and fully
// specified, so a seed gives the same numbers on every platform and standard library (std::
// distributions and std::shuffle's use of an engine are implementation-defined). Every
// sequence in gyre — rings, data, initial factors, samplers — is drawn from these primitives,
// and tests and reference outputs pin those sequences: change none of them.

// The increment of the state (2^64 / golden ratio); also a good odd multiplier for mixing seeds.
inline constexpr std::uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ull;

// The finaliser: a bijection of 64 bits in which every input bit affects every output bit.
constexpr std::uint64_t splitmix64_finalise(std::uint64_t z) noexcept {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// One step: advances `state` and returns the next number of its sequence.
constexpr std::uint64_t splitmix64(std::uint64_t& state) noexcept { return splitmix64_finalise(state += kGoldenGamma); }

// The first number of the sequence that starts at state `x`: a stateless hash of x, so that
// consecutive keys or ids map to unrelated values.
constexpr std::uint64_t mix64(std::uint64_t x) noexcept { return splitmix64(x); }

// The top 53 bits of `bits` as a double uniform in [0, 1).
constexpr double unit_double(std::uint64_t bits) noexcept { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

// A stream of splitmix64 numbers per (seed, stream), and the samplers the data generators
// need. Only std::log, exp, sin, cos and lgamma of the C library enter the samplers, so the
// same seed gives the same data with every standard library.
class Random {
 public:
  Random(std::uint64_t seed, std::uint64_t stream) : state_(seed ^ (kGoldenGamma * (stream + 1))) { next(); }

  std::uint64_t next() noexcept { return splitmix64(state_); }
  // Modulo bias is below n / 2^64, far under anything a test or a model could notice.
  std::uint64_t below(std::uint64_t n) { return next() % n; }
  double uniform() noexcept { return unit_double(next()); }  // [0, 1)

  // Box-Muller, both outputs used.
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double u1 = 1.0 - uniform();  // (0, 1], so the log is finite
    const double u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double a = 2.0 * std::numbers::pi * u2;
    spare_ = r * std::sin(a);
    has_spare_ = true;
    return r * std::cos(a);
  }

  // log of a Gamma(shape, 1) variate. In log space because shapes well below 1 (sparse
  // Dirichlet priors) give variates that underflow a double.
  double log_gamma_variate(double shape) {
    if (shape < 1.0) {
      // Gamma(a) = Gamma(a + 1) · U^(1/a)  (Marsaglia and Tsang's boost for a < 1)
      const double u = 1.0 - uniform();  // (0, 1]
      return log_gamma_variate(shape + 1.0) + std::log(u) / shape;
    }
    // Marsaglia and Tsang (2000), shape >= 1.
    const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
      const double x = normal();
      double v = 1.0 + c * x;
      if (v <= 0) continue;
      v = v * v * v;
      const double u = 1.0 - uniform();
      if (u < 1.0 - 0.0331 * x * x * x * x || std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v)))
        return std::log(d * v);
    }
  }

  // A draw from a symmetric Dirichlet(concentration) of out.size() components.
  void dirichlet(double concentration, std::vector<double>& out) {
    double top = -INFINITY;
    for (double& x : out) top = std::max(top, x = log_gamma_variate(concentration));
    double sum = 0;
    for (double& x : out) sum += x = std::exp(x - top);  // the largest becomes 1: no underflow to all zeros
    for (double& x : out) x /= sum;
  }

  std::uint64_t poisson(double mean) {
    if (mean < 30) {
      // Knuth: multiply uniforms until the product drops below e^-mean; O(mean) draws.
      const double limit = std::exp(-mean);
      std::uint64_t k = 0;
      for (double p = uniform(); p > limit; p *= uniform()) ++k;
      return k;
    }
    // Hörmann's PTRS (transformed rejection with squeeze), as in NumPy; O(1) for large means.
    const double slam = std::sqrt(mean), loglam = std::log(mean);
    const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
    const double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
    for (;;) {
      const double u = uniform() - 0.5, v = uniform();
      const double us = 0.5 - std::fabs(u);
      const double k = std::floor((2 * a / us + b) * u + mean + 0.43);
      if (us >= 0.07 && v <= vr) return static_cast<std::uint64_t>(k);
      if (k < 0 || (us < 0.013 && v > us)) continue;
      if (std::log(v) + std::log(invalpha) - std::log(a / (us * us) + b) <= -mean + k * loglam - std::lgamma(k + 1))
        return static_cast<std::uint64_t>(k);
    }
  }

 private:
  std::uint64_t state_;
  double spare_ = 0;
  bool has_spare_ = false;
};

}  // namespace gyre
