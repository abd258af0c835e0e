#include "conformance/multi_device.h"

#include "hlo/transport.h"
#include "jit/executable.h"

namespace hlo::conformance {

StatusOr<DeviceChoice> chooseTopology(const Module& module, std::optional<int64_t> replicas,
                                      std::optional<int64_t> partitions) {
  HLO_ASSIGN_OR_RETURN(collectives::StatedTopology header, collectives::statedTopology(module));
  auto disagree = [](const char* what, int64_t stated, int64_t given) {
    return errorStatus(std::string("the module's header says ") + what + "=" + std::to_string(stated) +
                       ", the flags " + std::to_string(given));
  };
  if (replicas && header.replicas && *replicas != *header.replicas)
    return disagree("replica_count", *header.replicas, *replicas);
  if (partitions && header.partitions && *partitions != *header.partitions)
    return disagree("num_partitions", *header.partitions, *partitions);
  // A count neither the flags nor the header give is what the collectives need.
  std::optional<int64_t> r = replicas ? replicas : header.replicas;
  std::optional<int64_t> p = partitions ? partitions : header.partitions;
  if (r && p) return DeviceChoice{{*r, *p}, false};
  collectives::Topology needed = collectives::inferTopology(module);
  collectives::Topology chosen{r.value_or(needed.replicas), p.value_or(needed.partitions)};
  return DeviceChoice{chosen, (!r && chosen.replicas > 1) || (!p && chosen.partitions > 1)};
}

uint64_t deviceSeed(uint64_t seed, int64_t device) {
  return seed + static_cast<uint64_t>(device) * 0x9E3779B97F4A7C15ull;
}

StatusOr<Literal> runAsDevice(const Module& module, const std::vector<Literal>& args, jit::Executable* exe,
                              const interp::Options& options, collectives::Participant& me) {
  if (exe) return exe->run(args, &me);
  interp::Options o = options;
  o.participant = &me;
  return interp::evaluate(module, args, o);
}

std::vector<StatusOr<Literal>> runOnEveryDevice(const Module& module, const collectives::Topology& topology,
                                                std::span<const std::vector<Literal>> args, jit::Executable* exe,
                                                const interp::Options& options) {
  return collectives::runOnDevices(topology, [&](collectives::Participant& me) {
    return runAsDevice(module, args[static_cast<size_t>(me.device)], exe, options, me);
  });
}

std::optional<std::pair<int64_t, Status>> firstFailure(const std::vector<StatusOr<Literal>>& outcomes) {
  std::optional<std::pair<int64_t, Status>> first;
  for (size_t d = 0; d < outcomes.size(); ++d) {
    if (outcomes[d].ok()) continue;
    bool followed = outcomes[d].status().message().rfind("device ", 0) == 0 &&
                    outcomes[d].status().message().find(" failed: ") != std::string::npos;
    if (!followed) return std::make_pair(static_cast<int64_t>(d), outcomes[d].status());
    if (!first) first = std::make_pair(static_cast<int64_t>(d), outcomes[d].status());
  }
  return first;
}

}  // namespace hlo::conformance
