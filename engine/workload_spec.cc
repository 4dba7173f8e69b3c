#include "engine/workload_spec.h"

namespace engine {

const char* ToString(CheckState state) {
  switch (state) {
    case CheckState::kPending:
      return "Pending";
    case CheckState::kReady:
      return "Ready";
    case CheckState::kRetry:
      return "Retry";
    case CheckState::kRejected:
      return "Rejected";
  }
  return "?";
}

}  // namespace engine
