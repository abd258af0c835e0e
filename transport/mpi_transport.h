// The devices of a multi-device run as the ranks of an MPI job, one device
// per rank: `mpirun -np 4 hlo-run --transport=mpi file.hlo`. The values are
// the in-process transport's (hlo/collectives.h computes every collective
// from the exchanged contributions, in the same order), so the results are
// the same bits.
//
// An exchange sends this rank's contribution to every other device of the
// group and receives theirs; send/recv are MPI messages. A rank that fails
// tells every other rank, whose waits then fail with its message; a wait
// that sees nothing for `timeoutSeconds` fails naming what it waits for
// (a rank that took another branch, or died), so a job never hangs.
#pragma once
#include <functional>
#include <vector>

#include "hlo/collectives.h"
#include "hlo/literal.h"
#include "hlo/status.h"

namespace hlo::collectives {
struct Participant;
}

namespace hlo::transport {

struct MpiRun {
  int rank = 0;  // this process's device
  // On rank 0, every device's outcome in device order; elsewhere, only this rank's.
  std::vector<StatusOr<Literal>> outcomes;
};

// Initializes MPI (the job must have topology.devices() ranks), runs `run`
// as this rank's device, gathers the outcomes on rank 0 and finalizes MPI.
StatusOr<MpiRun> runOnMpiRanks(const collectives::Topology& topology, double timeoutSeconds,
                               const std::function<StatusOr<Literal>(collectives::Participant&)>& run);

// Whether this build has the MPI transport.
bool haveMpi();

}  // namespace hlo::transport
