// The MPI transport's stand-in for builds without MPI (the self-contained
// hlo-run of `make gpu-bundle`, for machines that have no MPI library).
#include "transport/mpi_transport.h"

namespace hlo::transport {

bool haveMpi() { return false; }

StatusOr<MpiRun> runOnMpiRanks(const collectives::Topology&, double,
                               const std::function<StatusOr<Literal>(collectives::Participant&)>&) {
  return errorStatus("this hlo-run was built without MPI; --transport=threads runs the devices in one process");
}

}  // namespace hlo::transport
