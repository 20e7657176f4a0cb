// gyre/pipeline/job_threads.cpp — threads per part, first error kept, failing groups closed.
#include "gyre/pipeline/job_threads.hpp"

#include <exception>
#include <mutex>
#include <string>
#include <thread>

namespace gyre::pipeline {

void run_parts(std::vector<std::unique_ptr<net::Group>>& groups, const std::function<void(int rank)>& part) {
  std::mutex mutex;
  std::exception_ptr first_error;
  std::vector<std::thread> threads;
  for (int r = 0; r < static_cast<int>(groups.size()); ++r)
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
  for (auto& t : threads) t.join();
  if (first_error) std::rethrow_exception(first_error);
}

void run_beside(const std::function<void()>& main, const std::function<void()>& beside) {
  std::exception_ptr beside_error;
  std::thread thread;
  if (beside)
    thread = std::thread([&] {
      try {
        beside();
      } catch (...) {
        beside_error = std::current_exception();
      }
    });
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
