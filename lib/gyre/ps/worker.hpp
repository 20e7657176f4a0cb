// gyre/ps/worker.hpp — a worker's view of a keyed model and the program it runs: the same on the parameter server and peer to peer.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "gyre/base/export.hpp"

namespace gyre::pipeline::ps {

using Key = std::uint64_t;
using Value = std::vector<double>;
using KeyValues = std::vector<std::pair<Key, Value>>;

// The `pull` verb: folds one worker's update for `key` into the stored value. Default: adds it.
using Fold = std::function<void(Key key, Value& stored, std::span<const double> update)>;

struct Versioned {
  Value value;
  std::int64_t clock = 0;  // the clock the value includes every worker's pushes up to
};

// What a program's step sees of its worker. The two engines differ only in where the keys live:
// on servers of their own (run_ps), or each with one of the workers, which owns it (run_p2p: the
// parameter server's servers co-located with the workers). A program written against Worker runs
// on either; the engine ends the step (barrier) and the worker (stop) itself.
class GYRE_API Worker {
 public:
  virtual ~Worker();
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  virtual int index() const noexcept = 0;    // this worker's number, 0 … workers()−1
  virtual int workers() const noexcept = 0;  // how many workers the job has
  virtual std::int64_t clock() const noexcept = 0;  // steps this worker has ended

  // A key's value as the barrier rule lets this worker read it (under BSP, every worker's pushes
  // of the steps before this one; under SSP(s), at most s steps older), with this step's own
  // pushes added (read-my-writes).
  virtual Versioned get(Key key) = 0;
  virtual std::vector<Versioned> get(std::span<const Key> keys) = 0;  // one read per holder
  // Stores `value` as it is (sent at once; under BSP/SSP it takes effect with the step's pushes).
  virtual void set(Key key, Value value) = 0;
  // Adds `delta` to the key's value through the holder's fold, once; sent when the step ends.
  virtual void push(Key key, std::span<const double> delta) = 0;
  // Every key the model holds, ascending.
  virtual std::vector<Key> keys() = 0;

 protected:
  Worker() = default;
};

// The app's side of a job, in the verbs of the parameter-server family (Owl, Petuum, ps-lite).
struct Program {
  // Which keys a worker updates in its next step (its clock is given). Empty: every key.
  std::function<std::vector<Key>(int worker, std::int64_t clock)> schedule;
  // The worker's step: reads the model through worker.get(), returns updates for the keys' holders.
  std::function<KeyValues(Worker& worker, std::span<const Key> keys)> push;
  // How a holder folds an update into a stored value. Empty: adds it.
  Fold pull;
  // Asked after each barrier: true ends this worker. Required.
  std::function<bool(Worker& worker)> stop;
  // A key's value before any push. Empty: zeros.
  std::function<Value(Key)> initial;
};

}  // namespace gyre::pipeline::ps
