#include "backends/gpu/staging.h"

#include <algorithm>
#include <cstring>

namespace hlo::gpu {

Status StagedCopies::ready(Chunk& chunk) {
  if (!chunk.memory) {
    HLO_ASSIGN_OR_RETURN(PinnedHostBuffer memory, PinnedHostBuffer::allocate(driver_, kChunkBytes));
    chunk.memory.emplace(std::move(memory));
    HLO_ASSIGN_OR_RETURN(CudaEvent copied, CudaEvent::create(driver_));
    chunk.copied.emplace(std::move(copied));
  }
  if (chunk.pending) HLO_RETURN_IF_ERROR(chunk.copied->synchronize());
  chunk.pending = false;
  return okStatus();
}

Status StagedCopies::queued(Chunk& chunk) {
  HLO_RETURN_IF_ERROR(chunk.copied->record(nullptr));
  chunk.pending = true;
  return okStatus();
}

Status StagedCopies::toDevice(CUdeviceptr destination, const void* source, std::size_t bytes) {
  HLO_RETURN_IF_ERROR(driver_.makeCurrent());
  if (bytes < kStagedBytes) return HLO_CUDA_CALL(driver_, cuMemcpyHtoD, destination, source, bytes);
  const auto* from = static_cast<const unsigned char*>(source);
  for (std::size_t offset = 0, i = 0; offset < bytes; offset += kChunkBytes, ++i) {
    Chunk& chunk = chunks_[i % 2];
    std::size_t n = std::min(kChunkBytes, bytes - offset);
    HLO_RETURN_IF_ERROR(ready(chunk));  // its previous chunk has reached the device
    std::memcpy(chunk.memory->data(), from + offset, n);
    HLO_RETURN_IF_ERROR(HLO_CUDA_CALL(driver_, cuMemcpyHtoDAsync, destination + offset, chunk.memory->data(), n,
                                      nullptr));
    HLO_RETURN_IF_ERROR(queued(chunk));
  }
  return okStatus();
}

Status StagedCopies::toHost(void* destination, CUdeviceptr source, std::size_t bytes) {
  HLO_RETURN_IF_ERROR(driver_.makeCurrent());
  if (bytes < kStagedBytes) return HLO_CUDA_CALL(driver_, cuMemcpyDtoH, destination, source, bytes);
  auto* to = static_cast<unsigned char*>(destination);
  // Chunk i is queued into one pinned chunk while chunk i - 1, in the
  // other, is copied out.
  std::size_t chunks = (bytes + kChunkBytes - 1) / kChunkBytes;
  auto copyOut = [&](std::size_t i) -> Status {
    Chunk& chunk = chunks_[i % 2];
    HLO_RETURN_IF_ERROR(ready(chunk));
    std::size_t offset = i * kChunkBytes;
    std::memcpy(to + offset, chunk.memory->data(), std::min(kChunkBytes, bytes - offset));
    return okStatus();
  };
  for (std::size_t i = 0; i < chunks; ++i) {
    Chunk& chunk = chunks_[i % 2];
    HLO_RETURN_IF_ERROR(ready(chunk));
    std::size_t offset = i * kChunkBytes;
    HLO_RETURN_IF_ERROR(HLO_CUDA_CALL(driver_, cuMemcpyDtoHAsync, chunk.memory->data(), source + offset,
                                      std::min(kChunkBytes, bytes - offset), nullptr));
    HLO_RETURN_IF_ERROR(queued(chunk));
    if (i > 0) HLO_RETURN_IF_ERROR(copyOut(i - 1));
  }
  return copyOut(chunks - 1);
}

std::size_t StagedCopies::pinnedBytes() const {
  std::size_t bytes = 0;
  for (const Chunk& chunk : chunks_)
    if (chunk.memory) bytes += chunk.memory->size();
  return bytes;
}

}  // namespace hlo::gpu
