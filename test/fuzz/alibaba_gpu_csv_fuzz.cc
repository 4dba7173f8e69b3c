// File: test/fuzz/alibaba_gpu_csv_fuzz.cc
//
// `tally import alibaba-gpu`: the pods CSV of the OpenB GPU trace (name,cpu_milli,...), against a
// fixed, valid node list (a bad node row stops the import before any pod is read).
#include <cstdint>

#include "replay/import/alibaba_gpu_import.h"
#include "test/fuzz/import_output_check.h"

namespace {

constexpr std::string_view kNodes =
    "sn,cpu_milli,memory_mib,gpu,model\n"
    "node-0,96000,786432,8,V100M16\n"
    "node-1,96000,786432,8,T4\n"
    "node-2,64000,262144,2,A10\n"
    "node-3,96000,393216,0,\n";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static tally_fuzz::ScratchFile nodes("nodes.csv");
  static tally_fuzz::ScratchFile pods("pods.csv");
  static const std::string& nodes_path = nodes.Write(kNodes);
  replay::AlibabaGpuImportOptions options;
  options.nodes = nodes_path;
  options.pods = pods.Write(tally_fuzz::AsText(data, size));
  tally_fuzz::CheckImportOutput(replay::ImportAlibabaGpu(options));
  return 0;
}
