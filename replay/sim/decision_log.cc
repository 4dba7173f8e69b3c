// File: replay/sim/decision_log.cc
#include "replay/sim/decision_log.h"

#include <sys/stat.h>
#include <unistd.h>

namespace replay {

DecisionLog::DecisionLog(std::FILE* out) : out_(out) {
  struct stat st {};
  if (out_ != nullptr && ::fstat(::fileno(out_), &st) == 0 && S_ISREG(st.st_mode)) {
    start_ = static_cast<int64_t>(std::ftell(out_));
  }
}

bool DecisionLog::Restart() {
  buffer_.clear();
  lines_ = 0;
  digest_ = ContentDigest();
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
    std::fwrite(buffer_.data(), 1, buffer_.size(), out_);
  }
  buffer_.clear();
}

}  // namespace replay
