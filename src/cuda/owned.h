// Owned driver objects: move-only handles that free what they hold.
//
//   RR_ASSIGN_OR_RETURN(cu::Event done, cu::create_event(CU_EVENT_DISABLE_TIMING));
//   RR_ASSIGN_OR_RETURN(cu::DeviceBuffer items, cu::allocate_device(bytes));
//   RR_CU(cuEventRecord(done.get(), stream));
//   // an early return from here on frees both
//
// cu::Owned<Handle, Free> holds one handle (a pointer-like driver handle or a
// CUdeviceptr) and calls Free on it when destroyed or reset; a moved-from
// handle holds nothing. Free's result is ignored: a free fails only when the
// object is already gone (CUDA_ERROR_DEINITIALIZED at process exit, or its
// context destroyed), and a destructor has no one to report to.
//
// cu::ContextObjects<Objects> holds the objects a plan creates in one context
// (a struct of Owned handles and the host buffers its operations read) and
// the event its last operation records, and frees them with that context
// current, after waiting for that event: the order the plans' destructors
// need (copy_plan.h, digest_plan.h). Moving it moves the whole set, so a
// class built from these has `= default` moves.
//
// Thread-safety: a handle is a value; not safe for concurrent use of one.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <memory>
#include <source_location>
#include <string>
#include <string_view>
#include <utility>

#include "core/base/status.h"

namespace rangereplay::cu {

/// One owned driver handle; Free(handle) releases it. Handle{} is "none".
template <typename Handle, auto Free>
class Owned {
 public:
  Owned() = default;
  /// Takes ownership of `handle` (Handle{}: none).
  explicit Owned(Handle handle) noexcept : handle_(handle) {}
  Owned(Owned&& other) noexcept : handle_(std::exchange(other.handle_, Handle{})) {}
  Owned& operator=(Owned&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, Handle{});
    }
    return *this;
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() { reset(); }

  Handle get() const noexcept { return handle_; }
  explicit operator bool() const noexcept { return handle_ != Handle{}; }
  /// Gives up ownership without freeing; returns the handle.
  [[nodiscard]] Handle release() noexcept { return std::exchange(handle_, Handle{}); }
  /// Frees the handle held (if any); the driver's result is ignored.
  void reset() noexcept {
    if (handle_ != Handle{}) (void)Free(std::exchange(handle_, Handle{}));
  }

 private:
  Handle handle_{};
};

using Event = Owned<CUevent, &cuEventDestroy>;        // cuEventCreate
using Stream = Owned<CUstream, &cuStreamDestroy>;     // cuStreamCreate
using DeviceBuffer = Owned<CUdeviceptr, &cuMemFree>;  // cuMemAlloc
using PinnedBuffer = Owned<void*, &cuMemFreeHost>;    // cuMemHostAlloc

/// cuEventCreate(flags) in the current context. Errors: as cu_status, naming
/// the call and `where` (the caller's file:line).
StatusOr<Event> create_event(unsigned flags, std::source_location where = std::source_location::current());
/// cuStreamCreate(flags) in the current context. Errors: as create_event.
StatusOr<Stream> create_stream(unsigned flags, std::source_location where = std::source_location::current());
/// cuMemAlloc(bytes) in the current context. Errors: kResourceExhausted for
/// out of memory, otherwise as create_event.
StatusOr<DeviceBuffer> allocate_device(std::size_t bytes, std::source_location where = std::source_location::current());
/// cuMemHostAlloc(bytes, flags) (pinned host memory). Errors: as allocate_device.
StatusOr<PinnedBuffer> allocate_pinned(std::size_t bytes, unsigned flags,
                                       std::source_location where = std::source_location::current());

/// The driver objects one plan created in `context`, the host buffers its
/// asynchronous operations read, and the event its last operation recorded
/// (`done`). Objects: a default-constructible, movable struct of Owned
/// handles and host values, whose moved-from state holds no handle, with a
/// `void abandon() noexcept` that releases (without freeing) every handle.
///
/// reset() (and the destructor) pushes the context, waits for `done` when an
/// operation recorded it, destroys Objects (its members: reverse declaration
/// order), destroys `done` and pops the context. When the push fails the
/// context is gone, and with it everything created in it: Objects' handles
/// are abandoned first, so no handle of the dead context reaches the driver,
/// and only its host values are freed (a plan outlives its context only when
/// the application destroys the context under it, or at process exit).
/// Empty (no context) when default-constructed or moved from.
template <typename Objects>
class ContextObjects {
 public:
  ContextObjects() noexcept {}
  /// Empty objects and no `done` event yet, to be freed in `context`.
  explicit ContextObjects(CUcontext context) : context_(context) { std::construct_at(&objects_); }
  /// Empty objects and no `done` event yet, to be freed in the current
  /// context. Errors: kFailedPrecondition "<who> needs a current CUDA
  /// context" when none is current; as cu_status for cuCtxGetCurrent, naming
  /// `where`.
  static StatusOr<ContextObjects> in_current_context(std::string_view who,
                                                     std::source_location where = std::source_location::current());
  ContextObjects(ContextObjects&& other) noexcept { take(other); }
  ContextObjects& operator=(ContextObjects&& other) noexcept {
    if (this != &other) {
      reset();
      take(other);
    }
    return *this;
  }
  ContextObjects(const ContextObjects&) = delete;
  ContextObjects& operator=(const ContextObjects&) = delete;
  ~ContextObjects() { reset(); }

  /// False when empty.
  explicit operator bool() const noexcept { return context_ != nullptr; }
  /// The objects; only while not empty.
  Objects& operator*() noexcept { return objects_; }
  const Objects& operator*() const noexcept { return objects_; }
  Objects* operator->() noexcept { return &objects_; }
  const Objects* operator->() const noexcept { return &objects_; }

  /// Creates `done` (cuEventCreate with CU_EVENT_DISABLE_TIMING) in the current
  /// context. Errors: as create_event, naming `where`.
  Status create_done(std::source_location where = std::source_location::current()) {
    RR_ASSIGN_OR_RETURN(done_, create_event(CU_EVENT_DISABLE_TIMING, where));
    return ok_status();
  }
  CUevent done() const noexcept { return done_.get(); }
  /// Records `done` on `stream`: reset() then waits for it. Errors: as
  /// cu_status for cuEventRecord, naming `where`.
  Status record_done(CUstream stream, std::source_location where = std::source_location::current());

  /// Frees everything as the class comment says; leaves this empty.
  void reset() noexcept {
    if (context_ == nullptr) return;
    if (cuCtxPushCurrent(context_) == CUDA_SUCCESS) {
      if (done_recorded_) (void)cuEventSynchronize(done_.get());
      std::destroy_at(&objects_);
      done_.reset();
      CUcontext popped = nullptr;
      (void)cuCtxPopCurrent(&popped);
    } else {
      (void)done_.release();
      objects_.abandon();  // the dead context's handles, never freed
      std::destroy_at(&objects_);
    }
    context_ = nullptr;
    done_recorded_ = false;
  }

 private:
  void take(ContextObjects& other) noexcept {
    context_ = std::exchange(other.context_, nullptr);
    done_ = std::move(other.done_);
    done_recorded_ = std::exchange(other.done_recorded_, false);
    if (context_ != nullptr) {
      std::construct_at(&objects_, std::move(other.objects_));
      std::destroy_at(&other.objects_);  // moved from: holds no handle
    }
  }

  CUcontext context_ = nullptr;
  Event done_;
  bool done_recorded_ = false;
  union {
    Objects objects_;  // alive while context_ != nullptr
  };
};

/// cu_status for a call that `where` made (its file:line in the message).
Status cu_status_at(CUresult result, const char* call, const std::source_location& where);

template <typename Objects>
StatusOr<ContextObjects<Objects>> ContextObjects<Objects>::in_current_context(std::string_view who,
                                                                              std::source_location where) {
  CUcontext context = nullptr;
  RR_RETURN_IF_ERROR(cu_status_at(cuCtxGetCurrent(&context), "cuCtxGetCurrent(&context)", where));
  if (context == nullptr) return failed_precondition(std::string(who) + " needs a current CUDA context");
  return ContextObjects(context);
}

template <typename Objects>
Status ContextObjects<Objects>::record_done(CUstream stream, std::source_location where) {
  RR_RETURN_IF_ERROR(cu_status_at(cuEventRecord(done_.get(), stream), "cuEventRecord", where));
  done_recorded_ = true;
  return ok_status();
}

}  // namespace rangereplay::cu
