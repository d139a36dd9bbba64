// NVTX callbacks decoded into plain values: which range-marker call it was
// (push, pop, start, end, a domain created or destroyed, a string
// registered) and its arguments, with wide strings converted to UTF-8. Names
// are not resolved here: a domain or a registered string stays a handle,
// which the tool looks up in the names it has seen (profiler_tool.cpp).
//
// The decoder reads CUPTI's NVTX parameter structs (generated_nvtx_meta.h,
// plain declarations) and calls no CUDA, CUPTI or NVTX function, so it is
// unit tested with synthetic parameter structs.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <string>

namespace rangereplay::tool {

/// What an NVTX call means to range selection and to the tool's names.
enum class NvtxCallKind {
  kIgnored,           ///< not a range marker or name (marks, categories, ...), or one that cannot be used
  kPush,              ///< nvtxRangePush{A,W,Ex}, nvtxDomainRangePushEx
  kPop,               ///< nvtxRangePop, nvtxDomainRangePop
  kStart,             ///< nvtxRangeStart{A,W,Ex}, nvtxDomainRangeStartEx, with the id it returned
  kEnd,               ///< nvtxRangeEnd, nvtxDomainRangeEnd
  kDomainCreated,     ///< nvtxDomainCreate{A,W} that returned a domain
  kDomainDestroyed,   ///< nvtxDomainDestroy
  kStringRegistered,  ///< nvtxDomainRegisterString{A,W} that returned a handle
};

/// One decoded NVTX call. Which fields are set depends on `kind`; the others
/// keep their defaults.
struct NvtxCall {
  NvtxCallKind kind = NvtxCallKind::kIgnored;
  /// kPush, kPop, kStart: the range's domain (nullptr: the default domain,
  /// also for every call without a domain argument). kDomainCreated,
  /// kDomainDestroyed: the domain (for kDomainDestroyed, as the application
  /// passed it, possibly nullptr).
  const void* domain = nullptr;
  /// kPush, kStart: the range's message when given as text (ASCII, or wide
  /// characters converted to UTF-8; empty when absent, of an unknown message
  /// type, or a registered string). kDomainCreated: the domain's name.
  /// kStringRegistered: the registered string.
  std::string text;
  /// kPush, kStart: the message's registered-string handle when the event
  /// attributes name one (nullptr otherwise; then `text` is the message).
  /// kStringRegistered: the handle nvtxDomainRegisterString returned.
  const void* string = nullptr;
  /// kStart: the id nvtxRangeStart* returned. kEnd: the id being ended.
  std::uint64_t range_id = 0;
};

/// Decodes the NVTX callback `cbid` with CUPTI's `data` (its functionParams
/// must point to the parameter struct of `cbid`'s function, as CUPTI passes
/// them; functionReturnValue may be null). Calls that return a value the
/// tool needs (a range id, a domain, a string handle) decode as kIgnored
/// when there is none, as do creations with a null name. Pure: reads only
/// `data` and what it points to; thread-safe. Throws only std::bad_alloc.
NvtxCall decode_nvtx_call(CUpti_CallbackId cbid, const CUpti_NvtxData& data);

/// UTF-8 of a wide NVTX string (UTF-32 on Linux); code points above
/// U+10FFFF and surrogates become '?'. Empty for nullptr.
std::string utf8(const wchar_t* text);

}  // namespace rangereplay::tool
