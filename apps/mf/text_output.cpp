// apps/mf/text_output.cpp — large outputs formatted in parallel but written in order.
#include "mf/text_output.hpp"

#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <vector>

namespace gyre::mf {

void write_chunks(std::ostream& out, std::size_t count, const std::function<void(std::size_t, std::string&)>& format) {
  // Enough chunks per window to keep every thread busy, few enough to bound the text held.
  constexpr std::size_t kWindow = 64;
  std::vector<std::string> texts(kWindow);
  for (std::size_t first = 0; first < count; first += kWindow) {
    const std::size_t n = std::min(kWindow, count - first);
    oneapi::tbb::parallel_for(std::size_t{0}, n, [&](std::size_t k) {
      texts[k].clear();
      format(first + k, texts[k]);
    });
    for (std::size_t k = 0; k < n; ++k) out << texts[k];
  }
}

}  // namespace gyre::mf
