// gyre/runtime/parts.cpp — threads per part, the root cause kept, failing groups closed.
#include "gyre/runtime/parts.hpp"

#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>

#include "gyre/runtime/failure.hpp"

namespace gyre::runtime {
namespace {

int weight(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const net::SetupFailed&) {
    return 3;  // explains itself: which member never joined, or why it was refused
  } catch (const net::GroupClosed&) {
    return 1;
  } catch (const JobFailed&) {
    return 2;
  } catch (...) {
    return 3;
  }
}

}  // namespace

void RootCause::offer(std::exception_ptr error) {
  if (!error) return;
  // In one process the part's own exception is at hand: the embedder gets its own type.
  try {
    std::rethrow_exception(error);
  } catch (const JobFailed& e) {
    if (e.original()) error = e.original();
  } catch (...) {
  }
  const int w = weight(error);
  if (w > rank_) {
    error_ = std::move(error);
    rank_ = w;
  }
}

void run_parts(std::vector<std::unique_ptr<net::Group>>& groups, const std::function<void(int rank)>& part) {
  std::mutex mutex;
  RootCause cause;
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
            cause.offer(std::current_exception());
          }
          groups[static_cast<std::size_t>(r)]->close("rank " + std::to_string(r) + " failed");
        }
      });
    } catch (const std::exception& e) {  // std::system_error, or std::bad_alloc for the thread's state
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
  if (cause) cause.rethrow();
}

void run_beside(const std::function<void()>& main, const std::vector<std::function<void()>>& beside) {
  std::vector<std::exception_ptr> beside_errors(beside.size());
  std::vector<std::thread> threads;
  const auto join_all = [&] {
    for (auto& t : threads) t.join();
  };
  for (std::size_t i = 0; i < beside.size(); ++i) try {
      threads.emplace_back([&, i] {
        try {
          beside[i]();
        } catch (...) {
          beside_errors[i] = std::current_exception();
        }
      });
    } catch (const std::exception& e) {  // std::system_error, or std::bad_alloc for the thread's state
      join_all();  // the ones started end by their own timeouts; a joinable thread must not be left
      throw std::runtime_error(std::string("cannot start a thread: ") + e.what());
    }
  std::exception_ptr main_error;
  try {
    main();
  } catch (...) {
    main_error = std::current_exception();
  }
  join_all();
  RootCause cause;
  for (auto& e : beside_errors) cause.offer(e);
  cause.offer(main_error);
  if (cause) cause.rethrow();
}

void run_beside(const std::function<void()>& main, const std::function<void()>& beside) {
  std::vector<std::function<void()>> parts;
  if (beside) parts.push_back(beside);
  run_beside(main, parts);
}

}  // namespace gyre::runtime
