// File: replay/sim/decision_log.cc
#include "replay/sim/decision_log.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace replay {

DecisionLog::DecisionLog(std::FILE* out) : out_(out) {
  struct stat st {};
  if (out_ != nullptr && ::fstat(::fileno(out_), &st) == 0 && S_ISREG(st.st_mode)) {
    start_ = static_cast<int64_t>(std::ftell(out_));
  }
}

DecisionLog::~DecisionLog() {
  std::string ignored;
  Close(ignored);
}

bool DecisionLog::Restart() {
  buffer_.clear();
  lines_ = 0;
  digest_ = ContentDigest();
  write_error_ = 0;
  if (out_ == nullptr) {
    return true;
  }
  return start_ >= 0 && std::fflush(out_) == 0
         && ::ftruncate(::fileno(out_), static_cast<off_t>(start_)) == 0
         && ::fseeko(out_, static_cast<off_t>(start_), SEEK_SET) == 0;
}

void DecisionLog::Write(std::string_view line) {
  buffer_.append(line);
  buffer_.push_back('\n');
  ++lines_;
  if (buffer_.size() > (size_t{1} << 20)) {
    Flush();
  }
}

void DecisionLog::Flush() {
  digest_.Update(buffer_);
  if (out_ != nullptr && !buffer_.empty()) {
    // A short write is remembered, not dropped: Close reports it (a full disk must fail the run).
    errno = 0;
    if (std::fwrite(buffer_.data(), 1, buffer_.size(), out_) != buffer_.size()
        && write_error_ == 0) {
      write_error_ = errno != 0 ? errno : -1;
    }
  }
  buffer_.clear();
}

bool DecisionLog::Close(std::string& error) {
  Flush();
  if (out_ != nullptr && write_error_ == 0) {
    errno = 0;
    if (std::fflush(out_) != 0) {
      write_error_ = errno != 0 ? errno : -1;
    }
  }
  if (write_error_ != 0) {
    error = write_error_ > 0 ? std::generic_category().message(write_error_) : "write failed";
    return false;
  }
  return true;
}

}  // namespace replay
