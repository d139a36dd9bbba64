// The metric-query module (librangereplay_cli_metrics.so): MetricQueries
// backed by the CUPTI metric catalog. This is the only launcher file that
// calls src/cupti; see metric_queries.h for why it is a separate module.
// Built twice: librangereplay_cli_metrics.so (everything) and, with
// RANGEREPLAY_CLI_METRICS_HOST_ONLY, librangereplay_cli_metrics_host.so, which
// never calls the driver (chip_name is unavailable) and so loads without
// libcuda.so.1: the launcher checks names against kOfflineChip with it when
// there is no GPU.
#include <dlfcn.h>

#include <cupti.h>

#include <filesystem>
#include <map>

#include "core/config/metric_sets.h"
#if !RANGEREPLAY_CLI_METRICS_HOST_ONLY
#include <cuda.h>

#include "core/config/gpu_support.h"
#include "cupti/device_counters.h"
#endif
#include "cli/metric_queries.h"
#include "cupti/metric_catalog.h"

namespace rangereplay::cli {
namespace {

class CatalogMetricQueries final : public MetricQueries {
 public:
  std::vector<MetricSetInfo> metric_sets() override {
    std::vector<MetricSetInfo> out;
    for (const auto& set : rangereplay::metric_sets())
      out.push_back({set.name, set.description, set.metrics, set.sections});
    return out;
  }

  StatusOr<std::vector<std::string>> expand(const std::string& metrics_csv, const std::string& set_name) override {
    return rangereplay::expand_metric_list(metrics_csv, set_name);
  }

  StatusOr<ResolvedMetrics> resolve(const std::string& chip, const std::string& metrics_csv,
                                    const std::string& set_name) override {
    RR_ASSIGN_OR_RETURN(cupti::MetricCatalog * catalog, catalog_of(chip));
    return resolve_metric_list(metrics_csv, set_name, [catalog](const std::string& n) { return catalog->contains(n); });
  }

#if RANGEREPLAY_CLI_METRICS_HOST_ONLY
  StatusOr<std::string> chip_name(int) override {
    return unavailable("the host-only metric module cannot ask a device for its chip");
  }
  Status check_supported(int) override {
    return unavailable("the host-only metric module cannot ask a device what it is");
  }
#else
  StatusOr<std::string> chip_name(int device) override { return cupti::chip_name_of_device(device); }

  Status check_supported(int device) override {
    if (cuInit(0) != CUDA_SUCCESS) return unavailable("no usable CUDA driver");
    CUdevice dev = 0;
    if (cuDeviceGet(&dev, device) != CUDA_SUCCESS)
      return unavailable("cannot open CUDA device " + std::to_string(device));
    int major = 0, minor = 0;
    if (cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) != CUDA_SUCCESS ||
        cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) != CUDA_SUCCESS)
      return unavailable("cannot read the compute capability of CUDA device " + std::to_string(device));
    char name[256] = {};
    if (cuDeviceGetName(name, sizeof name, dev) != CUDA_SUCCESS) name[0] = '\0';
    // Before the chip name: CUPTI may not name the chip of a GPU it does not
    // profile, and the compute capability says why.
    RR_ASSIGN_OR_RETURN(std::vector<std::string> chips, cupti::supported_chips());
    if (major < kMinComputeCapabilityMajor) return check_gpu_supported(name, major, minor, "", chips);
    RR_ASSIGN_OR_RETURN(std::string chip, chip_name(device));
    return check_gpu_supported(name, major, minor, chip, chips);
  }
#endif

  StatusOr<std::vector<std::string>> list_metrics(const std::string& chip) override {
    RR_ASSIGN_OR_RETURN(cupti::MetricCatalog * catalog, catalog_of(chip));
    return catalog->list_metrics();
  }

  Status validate(const std::string& chip, const std::vector<std::string>& names) override {
    RR_ASSIGN_OR_RETURN(cupti::MetricCatalog * catalog, catalog_of(chip));
    return catalog->validate(names);
  }

  StatusOr<std::uint32_t> pass_count(const std::string& chip, const std::vector<std::string>& names) override {
    RR_ASSIGN_OR_RETURN(cupti::MetricCatalog * catalog, catalog_of(chip));
    RR_ASSIGN_OR_RETURN(auto passes, catalog->pass_count(names));
    return static_cast<std::uint32_t>(passes);
  }

  std::string cupti_library_path() override {
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(&cuptiGetVersion), &info) == 0 || info.dli_fname == nullptr) return "";
    std::error_code ec;
    auto path = std::filesystem::canonical(info.dli_fname, ec);
    return ec ? std::string() : path.string();
  }

 private:
  // One catalog per chip: creating one reads the chip's metric tables.
  StatusOr<cupti::MetricCatalog*> catalog_of(const std::string& chip) {
    auto it = catalogs_.find(chip);
    if (it == catalogs_.end()) {
      RR_ASSIGN_OR_RETURN(cupti::MetricCatalog catalog, cupti::MetricCatalog::create(chip));
      it = catalogs_.emplace(chip, std::move(catalog)).first;
    }
    return &it->second;
  }

  std::map<std::string, cupti::MetricCatalog> catalogs_;
};

}  // namespace
}  // namespace rangereplay::cli

extern "C" __attribute__((visibility("default"))) rangereplay::cli::MetricQueries*
rangereplay_cli_create_metric_queries(int abi) {
  if (abi != rangereplay::cli::kMetricQueriesAbi) return nullptr;
  return new rangereplay::cli::CatalogMetricQueries();  // NOLINT: ownership passes to the launcher's unique_ptr
}
