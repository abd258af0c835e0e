// Running a module on several devices for the tools and the corpus
// programs: which topology a run uses, each device's generated arguments,
// one run per device on an engine, and which failure to report.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hlo/collectives.h"
#include "hlo/literal.h"
#include "hlo/module.h"
#include "interp/evaluator.h"

namespace hlo::jit {
class Executable;
}

namespace hlo::conformance {

struct DeviceChoice {
  collectives::Topology topology;
  // A count above 1 that neither the flags nor the header gave: the
  // collectives' needs did.
  bool inferred = false;
};

// The topology of a run: `replicas` and `partitions` when given (which must
// agree with the header where it states them), else the header's; a count
// neither gives is what the module's collectives need
// (collectives::inferTopology).
StatusOr<DeviceChoice> chooseTopology(const Module& module, std::optional<int64_t> replicas,
                                      std::optional<int64_t> partitions);

// The seed of device d's generated arguments: device 0 draws what a
// one-device run draws, every other device values of its own.
uint64_t deviceSeed(uint64_t seed, int64_t device);

// Runs `module` as device `me` on `args`: compiled by `exe`, or on the
// interpreter with `options` when exe is null.
StatusOr<Literal> runAsDevice(const Module& module, const std::vector<Literal>& args, jit::Executable* exe,
                              const interp::Options& options, collectives::Participant& me);

// Runs `module` once per device, device d on args[d], as runAsDevice does,
// each on a thread of this process.
std::vector<StatusOr<Literal>> runOnEveryDevice(const Module& module, const collectives::Topology& topology,
                                                std::span<const std::vector<Literal>> args, jit::Executable* exe,
                                                const interp::Options& options);

// The failure to report, when any: the first device that failed of its own
// accord (the others fail with "device K failed: ..." after it), with its
// number.
std::optional<std::pair<int64_t, Status>> firstFailure(const std::vector<StatusOr<Literal>>& outcomes);

}  // namespace hlo::conformance
