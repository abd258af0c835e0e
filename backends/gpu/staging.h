// Copies of large arrays between ordinary host memory and the device,
// through page-locked (pinned) chunks.
//
// The driver copies pageable memory by staging it itself, one chunk at a
// time, with the host waiting while each chunk crosses the bus. Here two
// pinned chunks take turns: while the device copies one, the host fills (or
// empties) the other, so the host's memcpy and the bus overlap. Arrays
// under kStagedBytes are copied directly: for them the pipeline would only
// add the cost of its events.
#pragma once

#include <cstddef>
#include <optional>

#include "backends/gpu/cuda_driver.h"

namespace hlo::gpu {

class StagedCopies {
 public:
  static constexpr std::size_t kChunkBytes = std::size_t{8} << 20;
  static constexpr std::size_t kStagedBytes = std::size_t{1} << 20;

  explicit StagedCopies(const CudaDriver& driver) : driver_(driver) {}

  // `bytes` from host memory at `source` to the device at `destination`,
  // on the default stream: work queued after it sees the data. Returns when
  // `source` may be reused.
  Status toDevice(CUdeviceptr destination, const void* source, std::size_t bytes);
  // `bytes` from the device at `source` (after the work queued before) to
  // host memory at `destination`; returns when they are there.
  Status toHost(void* destination, CUdeviceptr source, std::size_t bytes);

  // Pinned host memory held (0 until a large array is copied).
  std::size_t pinnedBytes() const;

 private:
  // Chunk `slot`, made on first use, with the event of its last copy.
  struct Chunk {
    std::optional<PinnedHostBuffer> memory;
    std::optional<CudaEvent> copied;
    bool pending = false;  // a copy through it was queued and not yet waited for
  };
  Status ready(Chunk& chunk);   // made, and free of any queued copy
  Status queued(Chunk& chunk);  // records the event after a queued copy

  const CudaDriver& driver_;
  Chunk chunks_[2];
};

}  // namespace hlo::gpu
