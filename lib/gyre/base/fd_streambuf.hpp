// gyre/base/fd_streambuf.hpp — a buffered std::streambuf over a file descriptor that remembers why a write failed (internal to lib/, not installed).
#pragma once

#include <unistd.h>

#include <cerrno>
#include <streambuf>
#include <vector>

namespace gyre {

// std::ofstream cannot write to a descriptor (a nameless O_TMPFILE file, a duplicate of
// standard output), and when it fails it forgets errno, which is what the user needs to read
// ("No space left on device"). This buffer keeps the first error's errno in error().
class FdStreamBuf : public std::streambuf {
 public:
  explicit FdStreamBuf(int fd, std::size_t capacity = std::size_t{1} << 16) : fd_(fd), buffer_(capacity) {
    setp(buffer_.data(), buffer_.data() + buffer_.size());
  }
  FdStreamBuf(const FdStreamBuf&) = delete;
  FdStreamBuf& operator=(const FdStreamBuf&) = delete;

  int error() const noexcept { return error_; }  // errno of the first failed write, else 0

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    const char* p = pbase();
    while (error_ == 0 && p < pptr()) {
      const ssize_t n = ::write(fd_, p, static_cast<std::size_t>(pptr() - p));
      if (n >= 0) {
        p += n;
      } else if (errno != EINTR) {
        error_ = errno;
      }
    }
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return error_ == 0;
  }

  int fd_;
  std::vector<char> buffer_;
  int error_ = 0;
};

}  // namespace gyre
