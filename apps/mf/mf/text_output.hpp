// apps/mf/mf/text_output.hpp — tab-separated numbers in their shortest exact form, and large outputs formatted in parallel but written in order.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

namespace gyre::mf {

// Appends '\t' and the value: floats in the shortest text that reads back to the same bits.
template <typename Number>
void append_field(std::string& line, Number value) {
  char buf[32];
  line.push_back('\t');
  line.append(buf, std::to_chars(buf, buf + sizeof buf, value).ptr);
}

// Calls `format(chunk, text)` for chunks 0 … count−1 on the calling task arena's threads, a
// bounded window at a time so that memory does not grow with the output, and writes the texts
// to `out` in chunk order: the file is the same for any number of threads.
void write_chunks(std::ostream& out, std::size_t count, const std::function<void(std::size_t, std::string&)>& format);

}  // namespace gyre::mf
