// Owned driver objects on a GPU (cuda/owned.h): a handle frees what it holds
// when destroyed, reset or assigned over, and not when released or moved
// from; factory errors name the call and the caller's file; ContextObjects
// frees in its own context. Objects of a context destroyed under them are not
// tested: CUDA does not define a push of a destroyed context's handle (on the
// H200 such a test aborted in the driver with a heap corruption).
#include <cuda.h>
#include <gtest/gtest.h>

#include "gpu/gpu_stream_test.h"

#include <string>
#include <utility>
#include <vector>

#include "cuda/owned.h"

namespace rangereplay {
namespace {

constexpr std::size_t kBytes = std::size_t{1} << 20;

// Whether `address` is device memory the driver knows (not freed).
bool allocated(CUdeviceptr address) {
  CUcontext context = nullptr;
  return cuPointerGetAttribute(&context, CU_POINTER_ATTRIBUTE_CONTEXT, address) == CUDA_SUCCESS;
}

// Whether `host` is pinned memory from cuMemHostAlloc (not freed).
bool pinned(void* host) {
  unsigned int flags = 0;
  return cuMemHostGetFlags(&flags, host) == CUDA_SUCCESS;
}

using OwnedTest = gpu_test::GpuStreamTest;

TEST_F(OwnedTest, a_device_buffer_is_freed_by_destruction_reset_and_assignment_but_not_by_release) {
  CUdeviceptr destroyed = 0;
  {
    StatusOr<cu::DeviceBuffer> buffer = cu::allocate_device(kBytes);
    ASSERT_TRUE(buffer.ok()) << buffer.status().to_string();
    destroyed = buffer->get();
    EXPECT_TRUE(allocated(destroyed));
  }
  EXPECT_FALSE(allocated(destroyed));

  StatusOr<cu::DeviceBuffer> first = cu::allocate_device(kBytes);
  StatusOr<cu::DeviceBuffer> second = cu::allocate_device(kBytes);
  ASSERT_TRUE(first.ok() && second.ok());
  const CUdeviceptr a = first->get();
  const CUdeviceptr b = second->get();
  cu::DeviceBuffer moved(std::move(*first));
  EXPECT_EQ(first->get(), 0u);  // moved from: holds nothing
  EXPECT_EQ(moved.get(), a);
  EXPECT_TRUE(allocated(a));
  moved = std::move(*second);  // frees a, takes b
  EXPECT_FALSE(allocated(a));
  EXPECT_EQ(moved.get(), b);
  moved.reset();
  EXPECT_FALSE(allocated(b));
  EXPECT_FALSE(moved);

  StatusOr<cu::DeviceBuffer> kept = cu::allocate_device(kBytes);
  ASSERT_TRUE(kept.ok());
  const CUdeviceptr c = kept->release();
  { cu::DeviceBuffer gone = std::move(*kept); }
  EXPECT_TRUE(allocated(c));
  EXPECT_CU(cuMemFree(c));
}

TEST_F(OwnedTest, a_pinned_buffer_is_freed_by_reset) {
  StatusOr<cu::PinnedBuffer> buffer = cu::allocate_pinned(kBytes, CU_MEMHOSTALLOC_DEVICEMAP);
  ASSERT_TRUE(buffer.ok()) << buffer.status().to_string();
  void* host = buffer->get();
  EXPECT_TRUE(pinned(host));
  buffer->reset();
  EXPECT_FALSE(pinned(host));
}

TEST_F(OwnedTest, events_and_streams_are_created_in_the_current_context) {
  StatusOr<cu::Event> event = cu::create_event(CU_EVENT_DISABLE_TIMING);
  StatusOr<cu::Stream> stream = cu::create_stream(CU_STREAM_NON_BLOCKING);
  ASSERT_TRUE(event.ok()) << event.status().to_string();
  ASSERT_TRUE(stream.ok()) << stream.status().to_string();
  ASSERT_CU(cuEventRecord(event->get(), stream->get()));
  ASSERT_CU(cuEventSynchronize(event->get()));
  EXPECT_CU(cuEventQuery(event->get()));
  CUcontext context = nullptr;
  ASSERT_CU(cuStreamGetCtx(stream->get(), &context));
  EXPECT_EQ(context, context_);
}

TEST_F(OwnedTest, a_failed_allocation_names_the_call_and_the_caller) {
  StatusOr<cu::DeviceBuffer> buffer = cu::allocate_device(std::size_t{1} << 60);
  ASSERT_FALSE(buffer.ok());
  EXPECT_EQ(buffer.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(buffer.status().message().find("cuMemAlloc failed"), std::string::npos) << buffer.status().message();
  EXPECT_NE(buffer.status().message().find("owned_test.cu:"), std::string::npos) << buffer.status().message();
}

struct TestObjects {
  cu::DeviceBuffer buffer;
  std::vector<int> host_values;
  void abandon() noexcept { (void)buffer.release(); }
};

TEST_F(OwnedTest, context_objects_free_in_their_context_after_their_last_operation) {
  CUdevice device = 0;
  ASSERT_CU(cuCtxGetDevice(&device));
  CUcontext other = nullptr;
  ASSERT_CU(cuCtxCreate(&other, nullptr, 0, device));  // current now
  CUdeviceptr address = 0;
  {
    cu::ContextObjects<TestObjects> objects(other);
    ASSERT_TRUE(objects);
    ASSERT_TRUE(objects.create_done().ok());
    StatusOr<cu::DeviceBuffer> buffer = cu::allocate_device(kBytes);
    ASSERT_TRUE(buffer.ok());
    objects->buffer = std::move(*buffer);
    address = objects->buffer.get();
    ASSERT_CU(cuMemsetD8Async(address, 1, kBytes, nullptr));
    ASSERT_TRUE(objects.record_done(nullptr).ok());
    CUcontext popped = nullptr;
    ASSERT_CU(cuCtxPopCurrent(&popped));
    ASSERT_EQ(popped, other);
    ASSERT_CU(cuCtxSetCurrent(context_));
    cu::ContextObjects<TestObjects> moved = std::move(objects);
    EXPECT_FALSE(objects);
    EXPECT_TRUE(allocated(address));
  }  // frees the buffer with `other` pushed, then pops it
  EXPECT_FALSE(allocated(address));
  CUcontext current = nullptr;
  ASSERT_CU(cuCtxGetCurrent(&current));
  EXPECT_EQ(current, context_);
  EXPECT_CU(cuCtxDestroy(other));
}

TEST_F(OwnedTest, context_objects_in_the_current_context_or_an_error_naming_who_needs_one) {
  StatusOr<cu::ContextObjects<TestObjects>> objects =
      cu::ContextObjects<TestObjects>::in_current_context("Plan::create");
  ASSERT_TRUE(objects.ok()) << objects.status().to_string();
  EXPECT_TRUE(*objects);
  ASSERT_CU(cuCtxSetCurrent(nullptr));
  StatusOr<cu::ContextObjects<TestObjects>> none = cu::ContextObjects<TestObjects>::in_current_context("Plan::create");
  ASSERT_CU(cuCtxSetCurrent(context_));
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(none.status().message(), "Plan::create needs a current CUDA context");
}

}  // namespace
}  // namespace rangereplay
