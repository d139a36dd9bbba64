// Decoding of NVTX callbacks (see nvtx_calls.h).
#include "tool/logic/nvtx_calls.h"

#include <generated_nvtx_meta.h>
#include <nvtx3/nvToolsExt.h>
#include <type_traits>

namespace rangereplay::tool {

namespace {

// nvtxDomainCreateW's parameters (generated_nvtx_meta.h has no struct for it;
// CUPTI passes the call's one argument like nvtxDomainCreateA_params).
struct DomainCreateWParams {
  const wchar_t* name;
};

std::string text_of(const char* text) { return text ? text : ""; }

// The message of `call`'s event attributes: its text, or its registered
// string's handle.
void set_message(NvtxCall& call, const nvtxEventAttributes_t* attributes) {
  if (attributes == nullptr) return;
  switch (attributes->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII: call.text = text_of(attributes->message.ascii); break;
    case NVTX_MESSAGE_TYPE_UNICODE: call.text = utf8(attributes->message.unicode); break;
    case NVTX_MESSAGE_TYPE_REGISTERED: call.string = attributes->message.registered; break;
    default: break;
  }
}

NvtxCall push(const void* domain) {
  NvtxCall call;
  call.kind = NvtxCallKind::kPush;
  call.domain = domain;
  return call;
}

NvtxCall pop(const void* domain) {
  NvtxCall call;
  call.kind = NvtxCallKind::kPop;
  call.domain = domain;
  return call;
}

// nvtxRangeStart* returns the range's id; without it an end cannot be paired
// and the start is ignored.
NvtxCall start(const CUpti_NvtxData& data, const void* domain) {
  NvtxCall call;
  if (data.functionReturnValue == nullptr) return call;
  call.kind = NvtxCallKind::kStart;
  call.domain = domain;
  call.range_id = *static_cast<const nvtxRangeId_t*>(data.functionReturnValue);
  return call;
}

NvtxCall end(std::uint64_t range_id) {
  NvtxCall call;
  call.kind = NvtxCallKind::kEnd;
  call.range_id = range_id;
  return call;
}

// A created domain or registered string: the handle the call returned, when
// it returned one for a non-null name.
template <typename Handle, typename Char>
NvtxCall named_handle(NvtxCallKind kind, const CUpti_NvtxData& data, const Char* name) {
  NvtxCall call;
  const auto* returned = static_cast<const Handle*>(data.functionReturnValue);
  if (returned == nullptr || *returned == nullptr || name == nullptr) return call;
  call.kind = kind;
  if constexpr (std::is_same_v<Char, wchar_t>) {
    call.text = utf8(name);
  } else {
    call.text = name;
  }
  if (kind == NvtxCallKind::kDomainCreated) {
    call.domain = *returned;
  } else {
    call.string = *returned;
  }
  return call;
}

}  // namespace

NvtxCall decode_nvtx_call(CUpti_CallbackId cbid, const CUpti_NvtxData& data) {
  const void* params = data.functionParams;
  switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxRangePushA: {
      NvtxCall call = push(nullptr);
      call.text = text_of(static_cast<const nvtxRangePushA_params*>(params)->message);
      return call;
    }
    case CUPTI_CBID_NVTX_nvtxRangePushW: {
      NvtxCall call = push(nullptr);
      call.text = utf8(static_cast<const nvtxRangePushW_params*>(params)->message);
      return call;
    }
    case CUPTI_CBID_NVTX_nvtxRangePushEx: {
      NvtxCall call = push(nullptr);
      set_message(call, static_cast<const nvtxRangePushEx_params*>(params)->eventAttrib);
      return call;
    }
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
      const auto* p = static_cast<const nvtxDomainRangePushEx_params*>(params);
      NvtxCall call = push(p->domain);
      set_message(call, p->core.eventAttrib);
      return call;
    }
    case CUPTI_CBID_NVTX_nvtxRangePop: return pop(nullptr);
    case CUPTI_CBID_NVTX_nvtxDomainRangePop: return pop(static_cast<const nvtxDomainRangePop_params*>(params)->domain);
    case CUPTI_CBID_NVTX_nvtxRangeStartA: {
      NvtxCall call = start(data, nullptr);
      if (call.kind == NvtxCallKind::kStart)
        call.text = text_of(static_cast<const nvtxRangeStartA_params*>(params)->message);
      return call;
    }
    case CUPTI_CBID_NVTX_nvtxRangeStartW: {
      NvtxCall call = start(data, nullptr);
      if (call.kind == NvtxCallKind::kStart)
        call.text = utf8(static_cast<const nvtxRangeStartW_params*>(params)->message);
      return call;
    }
    case CUPTI_CBID_NVTX_nvtxRangeStartEx: {
      NvtxCall call = start(data, nullptr);
      if (call.kind == NvtxCallKind::kStart)
        set_message(call, static_cast<const nvtxRangeStartEx_params*>(params)->eventAttrib);
      return call;
    }
    case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx: {
      const auto* p = static_cast<const nvtxDomainRangeStartEx_params*>(params);
      NvtxCall call = start(data, p->domain);
      if (call.kind == NvtxCallKind::kStart) set_message(call, p->core.eventAttrib);
      return call;
    }
    case CUPTI_CBID_NVTX_nvtxRangeEnd: return end(static_cast<const nvtxRangeEnd_params*>(params)->id);
    case CUPTI_CBID_NVTX_nvtxDomainRangeEnd: return end(static_cast<const nvtxDomainRangeEnd_params*>(params)->core.id);
    case CUPTI_CBID_NVTX_nvtxDomainCreateA:
      return named_handle<nvtxDomainHandle_t>(NvtxCallKind::kDomainCreated, data,
                                              static_cast<const nvtxDomainCreateA_params*>(params)->name);
    case CUPTI_CBID_NVTX_nvtxDomainCreateW:
      return named_handle<nvtxDomainHandle_t>(NvtxCallKind::kDomainCreated, data,
                                              static_cast<const DomainCreateWParams*>(params)->name);
    case CUPTI_CBID_NVTX_nvtxDomainDestroy: {
      NvtxCall call;
      call.kind = NvtxCallKind::kDomainDestroyed;
      call.domain = static_cast<const nvtxDomainDestroy_params*>(params)->domain;
      return call;
    }
    case CUPTI_CBID_NVTX_nvtxDomainRegisterStringA:
      return named_handle<nvtxStringHandle_t>(NvtxCallKind::kStringRegistered, data,
                                              static_cast<const nvtxDomainRegisterStringA_params*>(params)->string);
    case CUPTI_CBID_NVTX_nvtxDomainRegisterStringW:
      // generated_nvtx_meta.h declares the string as const char*; the call's
      // argument is the const wchar_t* of nvtxDomainRegisterStringW.
      return named_handle<nvtxStringHandle_t>(
          NvtxCallKind::kStringRegistered, data,
          reinterpret_cast<const wchar_t*>(static_cast<const nvtxDomainRegisterStringW_params*>(params)->string));
    default: return NvtxCall{};
  }
}

std::string utf8(const wchar_t* text) {
  std::string out;
  if (text == nullptr) return out;
  for (const wchar_t* w = text; *w != 0; ++w) {
    auto c = static_cast<std::uint32_t>(*w);
    if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) c = U'?';
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else if (c < 0x800) {
      out.push_back(static_cast<char>(0xc0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3f)));
    } else if (c < 0x10000) {
      out.push_back(static_cast<char>(0xe0 | (c >> 12)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3f)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3f)));
    } else {
      out.push_back(static_cast<char>(0xf0 | (c >> 18)));
      out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3f)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3f)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3f)));
    }
  }
  return out;
}

}  // namespace rangereplay::tool
