// File: replay/report/validate.h
//
// `tally validate FILE... [-o text|json]`: load manifests, validate them as Kueue's webhooks do,
// build the quota tree and print the cohort forest. Exit status 0 when valid, 1 when not.
#pragma once

#include <string>
#include <vector>

namespace replay {

struct ValidateOptions {
  std::vector<std::string> files;
  std::string output = "text";  // text | json
};

// Writes the report to stdout (errors to stderr in text mode); returns the exit status.
int RunValidate(const ValidateOptions& options);

}  // namespace replay
