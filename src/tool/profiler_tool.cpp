// ProfilerTool: set-up, callback dispatch and the report at exit (see
// profiler_tool.h). Every callback returns at once while the current thread
// runs the tool's own work (in_tool()), and outside a range every callback
// but allocation tracking and range markers costs one atomic load.
#include "tool/profiler_tool.h"

#include <cupti_driver_cbid.h>
#include <generated_nvtx_meta.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>

#include "cupti/cupti_status.h"
#include "report/report_json.h"

namespace rangereplay::tool {

namespace {
thread_local bool t_in_tool = false;

void CUPTIAPI callback(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
  if (t_in_tool) return;
  auto* tool = static_cast<ProfilerTool*>(userdata);
  switch (domain) {
    case CUPTI_CB_DOMAIN_DRIVER_API: tool->on_driver_api(cbid, static_cast<const CUpti_CallbackData*>(data)); break;
    case CUPTI_CB_DOMAIN_NVTX: tool->on_nvtx(cbid, static_cast<const CUpti_NvtxData*>(data)); break;
    case CUPTI_CB_DOMAIN_RESOURCE: tool->on_resource(cbid, static_cast<const CUpti_ResourceData*>(data)); break;
    default: break;
  }
}

// Message text of an NVTX event attribute (ASCII only; others are unnamed).
std::string attribute_message(const nvtxEventAttributes_t* a) {
  if (a != nullptr && a->messageType == NVTX_MESSAGE_TYPE_ASCII && a->message.ascii) return a->message.ascii;
  return "";
}

std::unordered_map<const void*, std::string>& domain_names() {
  static std::unordered_map<const void*, std::string> names;
  return names;
}

std::string domain_name(nvtxDomainHandle_t d) {
  auto it = domain_names().find(d);
  return it == domain_names().end() ? std::string() : it->second;
}
}  // namespace

bool in_tool() { return t_in_tool; }
InToolScope::InToolScope() : previous_(t_in_tool) { t_in_tool = true; }
InToolScope::~InToolScope() { t_in_tool = previous_; }

ProfilerTool& ProfilerTool::instance() {
  static ProfilerTool* tool = new ProfilerTool();  // never destroyed: callbacks may outlive statics
  return *tool;
}

Status ProfilerTool::initialize() {
  const char* path = std::getenv("RANGEREPLAY_CONFIG");
  if (path == nullptr) return failed_precondition("RANGEREPLAY_CONFIG is not set; start the application with `rangereplay profile`");
  RR_ASSIGN_OR_RETURN(config_, read_profile_config(path));
  RR_RETURN_IF_ERROR(trigger_.configure(config_));
  report_.tool_version = "0.1.0";
  report_.command = config_.command;
  report_.metrics = config_.metrics;
  report_.range_metrics = config_.range_metrics == RangeMetrics::kWholeRange ? "whole" : "kernel";

  CUpti_SubscriberHandle subscriber = nullptr;
  RR_CUPTI(cuptiSubscribe(&subscriber, callback, this));
  RR_CUPTI(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API));
  RR_CUPTI(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE));
  RR_CUPTI(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_NVTX));
  enabled_ = true;
  std::atexit([] { ProfilerTool::instance().finish(); });
  return ok_status();
}

void ProfilerTool::finish() {
  if (finished_.exchange(true) || !enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  // Driver calls made while holding mutex_ must not reach our own callbacks.
  InToolScope scope;
  if (active_) {
    report_.errors.push_back("the application exited inside range '" + active_->name + "'; it was not replayed");
  }
  if (Status s = report::write_report_json(report_, config_.report_path); !s.ok())
    std::fprintf(stderr, "rangereplay: %s\n", s.message().c_str());
}

void ProfilerTool::on_nvtx(CUpti_CallbackId cbid, const CUpti_NvtxData* data) {
  std::lock_guard<std::mutex> lock(mutex_);
  // Driver calls made while holding mutex_ must not reach our own callbacks.
  InToolScope scope;
  const auto thread = std::this_thread::get_id();
  std::optional<std::string> begin;
  bool end = false;
  switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxRangePushA:
      begin = trigger_.on_push(thread, "", static_cast<const nvtxRangePushA_params*>(data->functionParams)->message);
      break;
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
      begin = trigger_.on_push(
          thread, "", attribute_message(static_cast<const nvtxRangePushEx_params*>(data->functionParams)->eventAttrib));
      break;
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
      const auto* p = static_cast<const nvtxDomainRangePushEx_params*>(data->functionParams);
      begin = trigger_.on_push(thread, domain_name(p->domain), attribute_message(p->core.eventAttrib));
      break;
    }
    case CUPTI_CBID_NVTX_nvtxRangePop: end = trigger_.on_pop(thread, ""); break;
    case CUPTI_CBID_NVTX_nvtxDomainRangePop:
      end = trigger_.on_pop(thread, domain_name(static_cast<const nvtxDomainRangePop_params*>(data->functionParams)->domain));
      break;
    case CUPTI_CBID_NVTX_nvtxDomainCreateA: {
      const auto* p = static_cast<const nvtxDomainCreateA_params*>(data->functionParams);
      const auto* ret = static_cast<const nvtxDomainHandle_t*>(data->functionReturnValue);
      if (ret != nullptr && *ret != nullptr && p->name != nullptr) domain_names()[*ret] = p->name;
      break;
    }
    default:
      break;
  }
  if (begin) {
    CUcontext ctx = nullptr;
    cuCtxGetCurrent(&ctx);
    begin_range(*begin, ctx);
  } else if (end) {
    end_range();
  }
}

void ProfilerTool::on_driver_api(CUpti_CallbackId cbid, const CUpti_CallbackData* data) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2:
      if (data->callbackSite == CUPTI_API_ENTER) {
        // Waits here while a replay window runs in another thread.
        std::lock_guard<std::mutex> lock(mutex_);
  // Driver calls made while holding mutex_ must not reach our own callbacks.
  InToolScope scope;
        if (active_)
          decline(*active_, cbid == CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2 ? "free_in_range" : "allocation_in_range",
                  std::string(data->functionName) + " inside the range");
      }
      track_allocation(cbid, data);
      return;
    case CUPTI_DRIVER_TRACE_CBID_cuProfilerStart:
      if (data->callbackSite == CUPTI_API_EXIT) {
        std::lock_guard<std::mutex> lock(mutex_);
  // Driver calls made while holding mutex_ must not reach our own callbacks.
  InToolScope scope;
        if (auto name = trigger_.on_profiler_start()) begin_range(*name, data->context);
      }
      return;
    case CUPTI_DRIVER_TRACE_CBID_cuProfilerStop:
      if (data->callbackSite == CUPTI_API_ENTER) {
        std::lock_guard<std::mutex> lock(mutex_);
  // Driver calls made while holding mutex_ must not reach our own callbacks.
  InToolScope scope;
        if (trigger_.on_profiler_stop()) end_range();
      }
      return;
    default:
      break;
  }
  if (data->callbackSite != CUPTI_API_ENTER || !trigger_.active()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  // Driver calls made while holding mutex_ must not reach our own callbacks.
  InToolScope scope;
  if (!active_ || !active_->profiled) return;
  observe_in_range(cbid, data);
}

void ProfilerTool::observe_in_range(CUpti_CallbackId cbid, const CUpti_CallbackData* data) {
  if (active_->ctx != nullptr && data->context != nullptr && data->context != active_->ctx) {
    decline(*active_, "multiple_contexts", std::string(data->functionName) + " in a second context inside the range");
    return;
  }
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      record_launch(cbid, data);
      return;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc_ptsz:
      decline(*active_, "host_function_in_range", "cuLaunchHostFunc inside the range");
      return;
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
    case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernelMultiDevice:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged:
      decline(*active_, "unsupported_api", std::string(data->functionName) + " inside the range");
      return;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCapture_v2_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph:
    case CUPTI_DRIVER_TRACE_CBID_cuStreamBeginCaptureToGraph_ptsz:
      decline(*active_, "stream_capture_active", std::string(data->functionName) + " inside the range");
      return;
    default:
      record_memory_op(cbid, data);
      return;
  }
}

void ProfilerTool::on_resource(CUpti_CallbackId cbid, const CUpti_ResourceData* /*data*/) {
  if (cbid != CUPTI_CBID_RESOURCE_MODULE_LOADED && cbid != CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING) return;
  std::lock_guard<std::mutex> lock(mutex_);
  // Driver calls made while holding mutex_ must not reach our own callbacks.
  InToolScope scope;
  if (active_ && active_->profiled)
    decline(*active_, cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED ? "module_load_in_range" : "module_unload_in_range",
            "a module was loaded or unloaded inside the range");
}

}  // namespace rangereplay::tool
