// gyre/ps/ps_messages.hpp — the parameter server's message bodies as their receivers check them against the job's layout.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "gyre/net/group.hpp"
#include "gyre/ps/ps_job.hpp"
#include "gyre/ps/ps_protocol.hpp"

namespace gyre::ps {

// Keys from the wire are indices into the servers' tables and the workers' caches, and their
// values are folded element by element: every key is checked against the layout (in range,
// held by the server it went to or came from) and every value against its length before
// anything uses them. Each decoder throws std::runtime_error saying what was wrong.

// Server side. The server names the sender around these messages.
// A kPush or kSet for server `server`: keys it holds, values of layout.value_size.
KeyValues decode_updates(const net::Message& m, const PsLayout& layout, int server);
// A kGet for server `server`: keys it holds; `clock` is the server clock the reply must include.
std::vector<Key> decode_read(const net::Message& m, const PsLayout& layout, int server, std::int64_t& clock);
// A kHandOver from server `server`: keys it holds, values of layout.value_size; `deferred` is
// the number of reads it held back.
KeyValues decode_hand_over(const net::Message& m, const PsLayout& layout, int server, std::int64_t& deferred);
// A kStop's report.
Buffer encode_report(const PsWorkerReport& report);
PsWorkerReport decode_report(const net::Message& m);

// Worker side; the errors name the sending rank.
// A kGetReply: exactly the keys `asked` (sorted, distinct), in that order, values of
// layout.value_size; `server_clock` is the clock the values include.
KeyValues decode_reply(const net::Message& m, std::span<const Key> asked, const PsLayout& layout,
                       std::int64_t& server_clock);
// A kKeysReply from server `server`: keys in range that it holds, strictly increasing.
std::vector<Key> decode_key_list(const net::Message& m, const PsLayout& layout, int server);

}  // namespace gyre::ps
