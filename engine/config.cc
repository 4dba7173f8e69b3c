#include "engine/config.h"

#include <fmt/format.h>

namespace engine {

std::string ToString(const SourceRef& source) {
  if (source.file.empty()) {
    return "<input>";
  }
  if (source.document < 0) {
    return source.file;
  }
  if (source.line > 0) {
    return fmt::format("{}: document {} (line {})", source.file, source.document, source.line);
  }
  return fmt::format("{}: document {}", source.file, source.document);
}

const char* ToString(QueueingStrategy v) {
  switch (v) {
    case QueueingStrategy::kBestEffortFifo:
      return "BestEffortFIFO";
    case QueueingStrategy::kStrictFifo:
      return "StrictFIFO";
  }
  return "?";
}

const char* ToString(FallbackFailurePolicy v) {
  switch (v) {
    case FallbackFailurePolicy::kDeactivateWorkload:
      return "DeactivateWorkload";
    case FallbackFailurePolicy::kRetryAllFlavors:
      return "RetryAllFlavors";
  }
  return "?";
}

const char* ToString(FallbackTrigger v) {
  switch (v) {
    case FallbackTrigger::kTimeoutForPodsReadyExceeded:
      return "TimeoutForPodsReadyExceeded";
    case FallbackTrigger::kAdmissionCheckRejected:
      return "AdmissionCheckRejected";
  }
  return "?";
}

const char* ToString(FungibilityPolicy v) {
  switch (v) {
    case FungibilityPolicy::kMayStopSearch:
      return "MayStopSearch";
    case FungibilityPolicy::kTryNextFlavor:
      return "TryNextFlavor";
  }
  return "?";
}

const char* ToString(FungibilityPreference v) {
  switch (v) {
    case FungibilityPreference::kUnset:
      return "";
    case FungibilityPreference::kBorrowingOverPreemption:
      return "BorrowingOverPreemption";
    case FungibilityPreference::kPreemptionOverBorrowing:
      return "PreemptionOverBorrowing";
  }
  return "?";
}

const char* ToString(PreemptionPolicy v) {
  switch (v) {
    case PreemptionPolicy::kNever:
      return "Never";
    case PreemptionPolicy::kLowerPriority:
      return "LowerPriority";
    case PreemptionPolicy::kLowerOrNewerEqualPriority:
      return "LowerOrNewerEqualPriority";
    case PreemptionPolicy::kAny:
      return "Any";
  }
  return "?";
}

const char* ToString(StopPolicy v) {
  switch (v) {
    case StopPolicy::kNone:
      return "None";
    case StopPolicy::kHold:
      return "Hold";
    case StopPolicy::kHoldAndDrain:
      return "HoldAndDrain";
  }
  return "?";
}

const char* ToString(TransformationStrategy v) {
  switch (v) {
    case TransformationStrategy::kRetain:
      return "Retain";
    case TransformationStrategy::kReplace:
      return "Replace";
  }
  return "?";
}

QuotaCheckStrategy EffectiveQuotaCheck(const ConfigurationSpec& configuration) {
  return configuration.feature_gates.quota_check_strategy()
             ? configuration.resources.quota_check_strategy
             : QuotaCheckStrategy::kBlockUndeclared;
}

}  // namespace engine
