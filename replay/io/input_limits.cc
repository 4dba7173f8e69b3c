// File: replay/io/input_limits.cc
#include "replay/io/input_limits.h"

namespace replay {
namespace {

InputLimits& Limits() {
  static InputLimits limits;
  return limits;
}

}  // namespace

const InputLimits& CurrentInputLimits() {
  return Limits();
}

void SetInputLimits(const InputLimits& limits) {
  Limits() = limits;
}

}  // namespace replay
