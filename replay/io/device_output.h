// File: replay/io/device_output.h
//
// Seed 001 in the replay's outputs: the devices a workload was given (the seed's pod annotation
// scheduler.alpha.kubernetes.io/resClass_<class>_<device>=<count>, one per pod and device), as a
// JSON array in its QuotaReserved / Admitted decision lines (docs/resource-classes.md).
#pragma once

#include <cstdint>

#include "engine/device_inventory.h"
#include "engine/workload.h"
#include "replay/io/json_writer.h"

namespace replay {

// [{"annotation":"scheduler.alpha.kubernetes.io/resClass_gpu.high.mem_nvidia-a100-80gb=4",
//   "node":"a100-80g-1","pod":0,"podSet":"main"}, ...], in grant order (first-fit order).
void WriteDeviceGrantsJson(const engine::DeviceInventory& devices, const engine::Workload& w,
                           JsonWriter& out);

}  // namespace replay
