// gyre/pipeline/job_threads.cpp — threads per part, first error kept, failing groups closed.
#include "gyre/pipeline/job_threads.hpp"

#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>

namespace gyre::pipeline {

void run_parts(std::vector<std::unique_ptr<net::Group>>& groups, const std::function<void(int rank)>& part) {
  std::mutex mutex;
  std::exception_ptr first_error;
  std::vector<std::thread> threads;
  const int n = static_cast<int>(groups.size());
  threads.reserve(groups.size());
  for (int r = 0; r < n; ++r) {
    try {
      threads.emplace_back([&, r] {
        try {
          part(r);
        } catch (...) {
          {
            std::lock_guard lock(mutex);
            if (!first_error) first_error = std::current_exception();
          }
          groups[static_cast<std::size_t>(r)]->close("rank " + std::to_string(r) + " failed");
        }
      });
    } catch (const std::system_error& e) {
      // Out of threads (a memory or process limit): the parts already running wait for ranks
      // that will never start, so close every group to stop them, and join them before
      // reporting; a joinable std::thread left behind would terminate the process.
      const std::string why = "cannot start the thread of rank " + std::to_string(r) + " of " + std::to_string(n) +
                              ": " + e.what() + " (fewer workers or threads may fit)";
      for (auto& g : groups) g->close(why);
      for (auto& t : threads) t.join();
      throw std::runtime_error(why);
    }
  }
  for (auto& t : threads) t.join();
  if (first_error) std::rethrow_exception(first_error);
}

void run_beside(const std::function<void()>& main, const std::function<void()>& beside) {
  std::exception_ptr beside_error;
  std::thread thread;
  if (beside)
    try {
      thread = std::thread([&] {
        try {
          beside();
        } catch (...) {
          beside_error = std::current_exception();
        }
      });
    } catch (const std::system_error& e) {
      throw std::runtime_error(std::string("cannot start a thread: ") + e.what());
    }
  std::exception_ptr main_error;
  try {
    main();
  } catch (...) {
    main_error = std::current_exception();
  }
  if (thread.joinable()) thread.join();
  if (beside_error) std::rethrow_exception(beside_error);
  if (main_error) std::rethrow_exception(main_error);
}

}  // namespace gyre::pipeline
