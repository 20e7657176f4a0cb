// gyre/base/entry_point.cpp — error-to-exit-code mapping of the command-line tools.
#include "gyre/base/entry_point.hpp"

#include <cstdio>
#include <exception>
#include <stdexcept>

#include "gyre/base/input_error.hpp"

namespace gyre {

int run_entry_point(const char* program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const InputError& e) {
    std::fprintf(stderr, "%s: error: %s\n", program, e.what());
    return kExitBadInput;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "%s: error: %s\n", program, e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", program, e.what());
    return 1;
  }
}

}  // namespace gyre
