// gyre/runtime/job.cpp — groups for each backend, and the parts on their threads.
#include "gyre/runtime/job.hpp"

#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>
#include <memory>
#include <optional>
#include <stdexcept>

#include "gyre/cluster/rendezvous.hpp"
#include "gyre/net/handshake.hpp"
#include "gyre/net/inproc.hpp"
#include "gyre/runtime/parts.hpp"

namespace gyre::runtime {

int Job::host_of(int member) const {
  if (member < workers) return member;
  return (member - workers) % workers;
}

std::string Job::name(int member) const {
  if (member < workers) return "rank " + std::to_string(member);
  const std::string role = roles.at(static_cast<std::size_t>(member - workers));
  return role + " (member " + std::to_string(member) + ", in rank " + std::to_string(host_of(member)) + "'s process)";
}

void Job::validate() const {
  if (workers < 1) throw std::invalid_argument("a job needs at least one worker");
  if (const auto* p = std::get_if<ProcessesBackend>(&backend)) {
    if (p->launch.size != workers)
      throw std::invalid_argument("one worker per process: " + std::to_string(p->launch.size) + " processes for " +
                                  std::to_string(workers) + " workers");
    if (p->launch.rank < 0 || p->launch.rank >= p->launch.size)
      throw std::invalid_argument("process rank " + std::to_string(p->launch.rank) + " outside 0.." +
                                  std::to_string(p->launch.size - 1));
    if (p->token.empty()) throw std::invalid_argument("a job across processes needs a token");
  }
}

namespace {

std::vector<std::string> member_names(const Job& job) {
  std::vector<std::string> names;
  for (int m = 0; m < job.members(); ++m) names.push_back(job.name(m));
  return names;
}

cluster::RendezvousOptions rendezvous_options(const Job& job, const ProcessesBackend& p) {
  cluster::RendezvousOptions ro;
  ro.job_id = p.job_id;
  ro.token = p.token;
  ro.timeout = p.connect_timeout;
  ro.settings = p.settings;
  ro.log = p.log;
  ro.member_names = member_names(job);
  return ro;
}

std::unique_ptr<net::Group> join(const Job& job, const ProcessesBackend& p, int member, net::TcpListener listener) {
  const auto table = cluster::rendezvous(p.coordinator, member, listener.endpoint().port, job.members(),
                                         rendezvous_options(job, p));
  net::TcpOptions to;
  to.rank = member;
  to.job_id = p.job_id;
  to.job_digest = cluster::settings_digest(p.settings);  // the rendezvous compared them; this binds the data plane too
  to.token = p.token;
  to.connect_timeout = p.connect_timeout;
  to.heartbeat_timeout = p.heartbeat_timeout;
  to.heartbeat_interval = std::min(to.heartbeat_interval, p.heartbeat_timeout / 4);
  to.log = p.log;
  to.member_names = member_names(job);
  auto group = net::connect_tcp_group(std::move(listener), table, to);
  if (const auto it = job.faults.find(member); it != job.faults.end()) group = net::with_faults(std::move(group), it->second);
  return member < job.workers ? net::with_faults(std::move(group), p.faults) : std::move(group);
}

// This process's members' groups, in member order. Every member joins at once (each one's
// rendezvous waits for all), and process 0 serves the coordinator meanwhile.
std::vector<std::pair<int, std::unique_ptr<net::Group>>> join_here(const Job& job, const ProcessesBackend& p) {
  std::vector<int> here;
  for (int m = 0; m < job.members(); ++m)
    if (job.host_of(m) == p.launch.rank) here.push_back(m);
  // The members' data-plane listeners are opened before the coordinator listens: a flood of
  // connections to its port may then hold every descriptor for a while, but not theirs.
  std::vector<net::TcpListener> listeners;
  for (std::size_t i = 0; i < here.size(); ++i) listeners.emplace_back(p.listen_host, 0);
  std::optional<cluster::Coordinator> coordinator;
  std::future<void> served;
  if (p.launch.rank == 0) {
    if (p.coordinator_listener) coordinator.emplace(job.members(), rendezvous_options(job, p), *p.coordinator_listener);
    else coordinator.emplace(p.coordinator, job.members(), rendezvous_options(job, p));
    served = std::async(std::launch::async, [&] { coordinator->serve(); });
  }
  std::vector<std::future<std::unique_ptr<net::Group>>> joining;
  for (std::size_t i = 0; i < here.size(); ++i)
    joining.push_back(std::async(std::launch::async, [&, i] { return join(job, p, here[i], std::move(listeners[i])); }));
  // The coordinator's failure first: only it knows which members never registered.
  RootCause cause;
  if (served.valid()) try {
      served.get();
    } catch (...) {
      cause.offer(std::current_exception());
    }
  std::vector<std::pair<int, std::unique_ptr<net::Group>>> groups;
  for (std::size_t i = 0; i < here.size(); ++i) try {
      groups.emplace_back(here[i], joining[i].get());
    } catch (...) {
      cause.offer(std::current_exception());
    }
  if (cause) try {
      cause.rethrow();
    } catch (const net::SetupFailed&) {
      throw as_job_failure(std::current_exception(), p.launch.rank);
    }
  return groups;
}

}  // namespace

namespace {

// Declared after a run's groups, so that it runs before they are destroyed.
struct DetachGroups {
  JobControl* control;
  ~DetachGroups() {
    if (control) control->detach_all();
  }
};

void run_processes(const Job& job, const ProcessesBackend& p, const std::function<void(const Member&)>& part) {
  JobControl* control = job.control.get();
  auto groups = join_here(job, p);
  const DetachGroups detach{control};
  if (control)
    for (auto& [member, group] : groups) control->attach(*group);
  // The worker on this thread, what this process hosts beside it on threads of their own.
  // A member that fails, however it learned of it (its own error, a notice, its transport
  // dropping a peer), tells the others here through their own inboxes: they may be waiting on
  // a peer that is still connected and will never write again (the scheduler, for a report
  // from the rank its worker neighbour dropped), and only the job's failure frees them. Their
  // links stay open, so that they tell their peers the cause instead of seeming to crash.
  std::vector<std::function<void()>> beside;
  const auto run_member = [&](std::size_t i) {
    Mailbox mailbox(*groups[i].second, control);
    try {
      part(Member{groups[i].first, *groups[i].second, mailbox});
    } catch (...) {
      if (control) control->note_failure(std::current_exception());
      const JobFailed failure = as_job_failure(std::current_exception(), groups[i].first);
      for (std::size_t j = 0; j < groups.size(); ++j)
        if (j != i) try {
            groups[j].second->send(groups[j].first, failure_message(failure));
          } catch (const std::exception&) {  // that member has ended: nobody to free
          }
      throw;
    }
  };
  for (std::size_t i = 1; i < groups.size(); ++i) beside.push_back([&, i] { run_member(i); });
  run_beside([&] { run_member(0); }, beside);
}

}  // namespace

void run(const Job& job, const std::function<void(const Member&)>& part) {
  job.validate();
  if (const auto* p = std::get_if<ProcessesBackend>(&job.backend)) return run_processes(job, *p, part);
  std::vector<std::unique_ptr<net::Group>> groups;
  if (const auto* l = std::get_if<LoopbackBackend>(&job.backend)) {
    net::TcpOptions to = l->tcp;
    // Every member is this process's own: without a token of the caller's, one is drawn here.
    if (to.token.empty()) to.token = net::random_token();
    to.member_names = member_names(job);
    groups = net::make_loopback_tcp_groups(job.members(), to);
  } else {
    groups = net::make_inproc_groups(job.members());
  }
  for (const auto& [member, faults] : job.faults)
    if (member >= 0 && member < job.members())
      groups[static_cast<std::size_t>(member)] = net::with_faults(std::move(groups[static_cast<std::size_t>(member)]), faults);
  JobControl* control = job.control.get();
  const DetachGroups detach{control};
  if (control)
    for (auto& g : groups) control->attach(*g);
  run_parts(groups, [&](int rank) {
    net::Group& group = *groups[static_cast<std::size_t>(rank)];
    Mailbox mailbox(group, control);
    try {
      part(Member{rank, group, mailbox});
    } catch (...) {
      if (control) control->note_failure(std::current_exception());
      throw;
    }
  });
}

namespace {
// A deadline that never comes, finite so that no clock arithmetic on it overflows.
std::chrono::steady_clock::time_point far_future() { return std::chrono::steady_clock::now() + std::chrono::hours(24 * 365); }
}  // namespace

JobHandle::JobHandle(Job job, std::function<void(const Job&)> program, StartOptions options)
    : control_(std::make_shared<JobControl>()), options_(options) {
  job.control = control_;
  // The thread owns the job and the program.
  thread_ = std::thread([control = control_, job = std::move(job), program = std::move(program)] {
    std::exception_ptr error;
    try {
      program(job);
    } catch (...) {
      error = std::current_exception();
    }
    control->finish(error);
  });
}

JobHandle::JobHandle(Job job, std::function<void(const Member&)> part, StartOptions options)
    : JobHandle(std::move(job), std::function<void(const Job&)>([part = std::move(part)](const Job& j) { run(j, part); }),
                options) {}

// Joins even an abandoned job: its program may refer to the caller's objects, which must not
// die under it. A caller that cannot wait keeps the handle (join_for tells when it may go).
JobHandle::~JobHandle() {
  if (!control_) return;  // moved from
  control_->cancel();
  thread_.join();
}

void JobHandle::cancel() { control_->cancel(); }

bool JobHandle::wait_for(std::chrono::milliseconds timeout) {
  return control_->wait(std::chrono::steady_clock::now() + timeout, options_.grace) != JobControl::Outcome::kRunning;
}

void JobHandle::wait() {
  control_->wait(far_future(), options_.grace);
  if (const auto error = control_->outcome()) std::rethrow_exception(error);
}

bool JobHandle::join_for(std::chrono::milliseconds timeout) {
  return control_->wait_ended(std::chrono::steady_clock::now() + timeout);
}

}  // namespace gyre::runtime
