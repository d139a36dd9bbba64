// Factories of owned driver objects (see owned.h).
#include "cuda/owned.h"

#include "cuda/cu_status.h"

namespace rangereplay::cu {

Status cu_status_at(CUresult result, const char* call, const std::source_location& where) {
  return cu_status(result, call, where.file_name(), static_cast<int>(where.line()));
}

StatusOr<Event> create_event(unsigned flags, std::source_location where) {
  CUevent event = nullptr;
  RR_RETURN_IF_ERROR(cu_status_at(cuEventCreate(&event, flags), "cuEventCreate", where));
  return Event(event);
}

StatusOr<Stream> create_stream(unsigned flags, std::source_location where) {
  CUstream stream = nullptr;
  RR_RETURN_IF_ERROR(cu_status_at(cuStreamCreate(&stream, flags), "cuStreamCreate", where));
  return Stream(stream);
}

StatusOr<DeviceBuffer> allocate_device(std::size_t bytes, std::source_location where) {
  CUdeviceptr address = 0;
  RR_RETURN_IF_ERROR(cu_status_at(cuMemAlloc(&address, bytes), "cuMemAlloc", where));
  return DeviceBuffer(address);
}

StatusOr<PinnedBuffer> allocate_pinned(std::size_t bytes, unsigned flags, std::source_location where) {
  void* host = nullptr;
  RR_RETURN_IF_ERROR(cu_status_at(cuMemHostAlloc(&host, bytes, flags), "cuMemHostAlloc", where));
  return PinnedBuffer(host);
}

}  // namespace rangereplay::cu
