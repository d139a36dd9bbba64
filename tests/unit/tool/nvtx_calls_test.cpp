// The NVTX call decoder (tool/logic/nvtx_calls.h), fed synthetic CUPTI NVTX
// parameter structs and return values for every callback the tool handles.
#include "tool/logic/nvtx_calls.h"

#include <generated_nvtx_meta.h>
#include <gtest/gtest.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdint>
#include <string>

namespace rangereplay::tool {
namespace {

using Kind = NvtxCallKind;

CUpti_NvtxData nvtx_data(const void* params, const void* returned = nullptr) {
  CUpti_NvtxData data{};
  data.functionName = "nvtx";
  data.functionParams = params;
  data.functionReturnValue = returned;
  return data;
}

// Distinct fake handles: addresses of objects the decoder never reads.
int g_domain_object = 0;
int g_string_object = 0;
const auto kDomain = reinterpret_cast<nvtxDomainHandle_t>(&g_domain_object);
const auto kString = reinterpret_cast<nvtxStringHandle_t>(&g_string_object);

nvtxEventAttributes_t ascii_attributes(const char* message) {
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = message;
  return a;
}

nvtxEventAttributes_t unicode_attributes(const wchar_t* message) {
  nvtxEventAttributes_t a = ascii_attributes(nullptr);
  a.messageType = NVTX_MESSAGE_TYPE_UNICODE;
  a.message.unicode = message;
  return a;
}

nvtxEventAttributes_t registered_attributes(nvtxStringHandle_t string) {
  nvtxEventAttributes_t a = ascii_attributes(nullptr);
  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = string;
  return a;
}

// U+00E9, U+20AC and U+1F600: two, three and four UTF-8 bytes.
const wchar_t kWide[] = {L'a', 0xe9, 0x20ac, 0x1f600, 0};
const std::string kWideUtf8 = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";

void expect_call(const NvtxCall& call, Kind kind, const void* domain, const std::string& text, const void* string,
                 std::uint64_t range_id) {
  EXPECT_EQ(call.kind, kind);
  EXPECT_EQ(call.domain, domain);
  EXPECT_EQ(call.text, text);
  EXPECT_EQ(call.string, string);
  EXPECT_EQ(call.range_id, range_id);
}

TEST(NvtxCalls, PushA) {
  nvtxRangePushA_params p{"step"};
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxRangePushA, nvtx_data(&p)), Kind::kPush, nullptr, "step", nullptr,
              0);
  p.message = nullptr;
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxRangePushA, nvtx_data(&p)), Kind::kPush, nullptr, "", nullptr, 0);
}

TEST(NvtxCalls, PushWConvertsToUtf8) {
  nvtxRangePushW_params p{kWide};
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxRangePushW, nvtx_data(&p)), Kind::kPush, nullptr, kWideUtf8, nullptr,
              0);
  p.message = nullptr;
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxRangePushW, nvtx_data(&p)), Kind::kPush, nullptr, "", nullptr, 0);
}

TEST(NvtxCalls, PushExMessageTypes) {
  nvtxEventAttributes_t ascii = ascii_attributes("layer");
  nvtxRangePushEx_params p{&ascii};
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxRangePushEx, nvtx_data(&p)), Kind::kPush, nullptr, "layer", nullptr,
              0);
  nvtxEventAttributes_t null_ascii = ascii_attributes(nullptr);
  p.eventAttrib = &null_ascii;
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxRangePushEx, nvtx_data(&p)), Kind::kPush, nullptr, "", nullptr, 0);
  nvtxEventAttributes_t unicode = unicode_attributes(kWide);
  p.eventAttrib = &unicode;
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxRangePushEx, nvtx_data(&p)), Kind::kPush, nullptr, kWideUtf8,
              nullptr, 0);
  nvtxEventAttributes_t registered = registered_attributes(kString);
  p.eventAttrib = &registered;
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxRangePushEx, nvtx_data(&p)), Kind::kPush, nullptr, "", kString, 0);
  nvtxEventAttributes_t unknown = ascii_attributes("ignored");
  unknown.messageType = NVTX_MESSAGE_UNKNOWN;
  p.eventAttrib = &unknown;
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxRangePushEx, nvtx_data(&p)), Kind::kPush, nullptr, "", nullptr, 0);
  p.eventAttrib = nullptr;
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxRangePushEx, nvtx_data(&p)), Kind::kPush, nullptr, "", nullptr, 0);
}

TEST(NvtxCalls, DomainPushEx) {
  nvtxEventAttributes_t registered = registered_attributes(kString);
  nvtxDomainRangePushEx_params p{};
  p.domain = kDomain;
  p.core.eventAttrib = &registered;
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, nvtx_data(&p)), Kind::kPush, kDomain, "", kString,
              0);
  nvtxEventAttributes_t ascii = ascii_attributes("forward");
  p.core.eventAttrib = &ascii;
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, nvtx_data(&p)), Kind::kPush, kDomain, "forward",
              nullptr, 0);
}

TEST(NvtxCalls, Pops) {
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxRangePop, nvtx_data(nullptr)), Kind::kPop, nullptr, "", nullptr, 0);
  nvtxDomainRangePop_params p{kDomain};
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxDomainRangePop, nvtx_data(&p)), Kind::kPop, kDomain, "", nullptr, 0);
}

TEST(NvtxCalls, StartsCarryTheReturnedId) {
  const nvtxRangeId_t id = 42;
  nvtxRangeStartA_params a{"region"};
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxRangeStartA, nvtx_data(&a, &id)), Kind::kStart, nullptr, "region",
              nullptr, 42);
  nvtxRangeStartW_params w{kWide};
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxRangeStartW, nvtx_data(&w, &id)), Kind::kStart, nullptr, kWideUtf8,
              nullptr, 42);
  nvtxEventAttributes_t unicode = unicode_attributes(kWide);
  nvtxRangeStartEx_params ex{&unicode};
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxRangeStartEx, nvtx_data(&ex, &id)), Kind::kStart, nullptr, kWideUtf8,
              nullptr, 42);
  nvtxEventAttributes_t registered = registered_attributes(kString);
  nvtxDomainRangeStartEx_params domain{};
  domain.domain = kDomain;
  domain.core.eventAttrib = &registered;
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxDomainRangeStartEx, nvtx_data(&domain, &id)), Kind::kStart, kDomain,
              "", kString, 42);
}

TEST(NvtxCalls, StartsWithoutAReturnedIdAreIgnored) {
  nvtxRangeStartA_params a{"region"};
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxRangeStartA, nvtx_data(&a)), Kind::kIgnored, nullptr, "", nullptr,
              0);
  nvtxRangeStartW_params w{kWide};
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxRangeStartW, nvtx_data(&w)), Kind::kIgnored, nullptr, "", nullptr,
              0);
  nvtxEventAttributes_t ascii = ascii_attributes("region");
  nvtxRangeStartEx_params ex{&ascii};
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxRangeStartEx, nvtx_data(&ex)), Kind::kIgnored, nullptr, "", nullptr,
              0);
  nvtxDomainRangeStartEx_params domain{};
  domain.domain = kDomain;
  domain.core.eventAttrib = &ascii;
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxDomainRangeStartEx, nvtx_data(&domain)), Kind::kIgnored, nullptr, "",
              nullptr, 0);
}

TEST(NvtxCalls, Ends) {
  nvtxRangeEnd_params p{7};
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxRangeEnd, nvtx_data(&p)), Kind::kEnd, nullptr, "", nullptr, 7);
  nvtxDomainRangeEnd_params d{};
  d.domain = kDomain;
  d.core.id = 9;
  // The id alone pairs an end with its start: the domain is not kept.
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxDomainRangeEnd, nvtx_data(&d)), Kind::kEnd, nullptr, "", nullptr, 9);
}

TEST(NvtxCalls, DomainCreateAAndW) {
  const nvtxDomainHandle_t returned = kDomain;
  nvtxDomainCreateA_params a{"cudnn"};
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxDomainCreateA, nvtx_data(&a, &returned)), Kind::kDomainCreated,
              kDomain, "cudnn", nullptr, 0);
  // CUPTI passes nvtxDomainCreateW's one argument as its only field.
  const wchar_t* wide_name = kWide;
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxDomainCreateW, nvtx_data(&wide_name, &returned)),
              Kind::kDomainCreated, kDomain, kWideUtf8, nullptr, 0);
}

TEST(NvtxCalls, DomainCreateWithoutHandleOrNameIsIgnored) {
  const nvtxDomainHandle_t returned = kDomain;
  const nvtxDomainHandle_t null_handle = nullptr;
  nvtxDomainCreateA_params a{"cudnn"};
  EXPECT_EQ(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxDomainCreateA, nvtx_data(&a)).kind, Kind::kIgnored);
  EXPECT_EQ(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxDomainCreateA, nvtx_data(&a, &null_handle)).kind, Kind::kIgnored);
  a.name = nullptr;
  EXPECT_EQ(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxDomainCreateA, nvtx_data(&a, &returned)).kind, Kind::kIgnored);
  const wchar_t* wide_name = nullptr;
  EXPECT_EQ(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxDomainCreateW, nvtx_data(&wide_name, &returned)).kind, Kind::kIgnored);
}

TEST(NvtxCalls, DomainDestroy) {
  nvtxDomainDestroy_params p{kDomain};
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxDomainDestroy, nvtx_data(&p)), Kind::kDomainDestroyed, kDomain, "",
              nullptr, 0);
}

TEST(NvtxCalls, RegisterStringAAndW) {
  const nvtxStringHandle_t returned = kString;
  nvtxDomainRegisterStringA_params a{kDomain, "gemm"};
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxDomainRegisterStringA, nvtx_data(&a, &returned)),
              Kind::kStringRegistered, nullptr, "gemm", kString, 0);
  // generated_nvtx_meta.h declares the W form's string as const char*.
  nvtxDomainRegisterStringW_params w{kDomain, reinterpret_cast<const char*>(kWide)};
  expect_call(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxDomainRegisterStringW, nvtx_data(&w, &returned)),
              Kind::kStringRegistered, nullptr, kWideUtf8, kString, 0);
}

TEST(NvtxCalls, RegisterStringWithoutHandleOrStringIsIgnored) {
  const nvtxStringHandle_t returned = kString;
  const nvtxStringHandle_t null_handle = nullptr;
  nvtxDomainRegisterStringA_params a{kDomain, "gemm"};
  EXPECT_EQ(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxDomainRegisterStringA, nvtx_data(&a)).kind, Kind::kIgnored);
  EXPECT_EQ(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxDomainRegisterStringA, nvtx_data(&a, &null_handle)).kind,
            Kind::kIgnored);
  nvtxDomainRegisterStringW_params w{kDomain, nullptr};
  EXPECT_EQ(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxDomainRegisterStringW, nvtx_data(&w, &returned)).kind, Kind::kIgnored);
}

TEST(NvtxCalls, MarksAreIgnored) {
  nvtxMarkA_params a{"tick"};
  EXPECT_EQ(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxMarkA, nvtx_data(&a)).kind, Kind::kIgnored);
  nvtxMarkW_params w{kWide};
  EXPECT_EQ(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxMarkW, nvtx_data(&w)).kind, Kind::kIgnored);
  nvtxEventAttributes_t ascii = ascii_attributes("tick");
  nvtxMarkEx_params ex{&ascii};
  EXPECT_EQ(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxMarkEx, nvtx_data(&ex)).kind, Kind::kIgnored);
  nvtxDomainMarkEx_params domain{};
  domain.domain = kDomain;
  domain.core.eventAttrib = &ascii;
  EXPECT_EQ(decode_nvtx_call(CUPTI_CBID_NVTX_nvtxDomainMarkEx, nvtx_data(&domain)).kind, Kind::kIgnored);
}

TEST(NvtxCalls, Utf8ReplacesInvalidCodePoints) {
  const wchar_t text[] = {0x7f, 0x80, 0x7ff, 0x800, 0xffff, 0x10000, 0x10ffff, 0xd800, 0xdfff, 0x110000, 0};
  EXPECT_EQ(utf8(text), "\x7f\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf\xf0\x90\x80\x80\xf4\x8f\xbf\xbf???");
  EXPECT_EQ(utf8(nullptr), "");
  EXPECT_EQ(utf8(L""), "");
}

}  // namespace
}  // namespace rangereplay::tool
