// File: replay/report/explain_eta.h
//
// The ETA section of `tally explain --eta` and `tally predict` (replay/report/eta.h computes it):
// the predicted admission time, its range, what it waits behind, in text and JSON.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "replay/io/json_writer.h"
#include "replay/report/eta.h"

namespace replay {

// Whether a forward simulation can change the answer for a workload with this reason code: not
// for one already admitted or finished, nor for causes that releases of quota do not remove
// (a stopped queue, a namespace mismatch, no matching flavor, a request above every quota...).
bool EtaApplies(std::string_view reason_code);

// What --eta answers: a prediction, or the reason code no release of quota changes.
struct EtaAnswer {
  std::optional<EtaPrediction> prediction;
  std::string reason_code;    // when there is no prediction
  std::string runtimes_file;  // --runtimes, or ""
};

// The value of the "eta" key: an object (docs/explain.md "ETA").
void WriteEtaJson(const EtaAnswer& answer, JsonWriter& out);

// "ETA: ..." lines, ending with a newline.
std::string FormatEtaText(const EtaAnswer& answer);

}  // namespace replay
