#include "replay/io/device_output.h"

#include <fmt/format.h>

namespace replay {

void WriteDeviceGrantsJson(const engine::DeviceInventory& devices, const engine::Workload& w,
                           JsonWriter& out) {
  out.BeginArray();
  if (const std::vector<engine::DeviceGrant>* grants = devices.AllocationOf(engine::Index(w.id))) {
    for (const engine::DeviceGrant& g : *grants) {
      out.BeginObject();
      out.Key("annotation");
      out.String(fmt::format("scheduler.alpha.kubernetes.io/resClass_{}_{}={}", g.resource_class,
                             g.device, g.count));
      out.Key("node");
      out.String(g.node);
      out.Key("pod");
      out.Int(g.pod);
      out.Key("podSet");
      out.String(g.pod_set < w.device_pod_sets->size() ? (*w.device_pod_sets)[g.pod_set] : "");
      out.EndObject();
    }
  }
  out.EndArray();
}

}  // namespace replay
