// The report journal (report_journal.h).
#include "report/report_journal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/base/decline_reason.h"
#include "report/report_file.h"
#include "report/report_json.h"
#include "report/time_budget.h"

namespace rangereplay::report {
namespace {

using json = nlohmann::json;

constexpr std::string_view kJournalName = "rangereplay";

// The report's own fields as a header line (its ranges left out).
std::string header_line(const Report& report) {
  json j = json::object();
  j["journal"] = kJournalName;
  j["journal_version"] = kJournalVersion;
  j["report"] = report_header_json(report);
  return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

std::string range_line(std::size_t slot, const RangeRecord& record, bool final) {
  json j = json::object();
  j["slot"] = slot;
  j["final"] = final;
  j["range"] = record;
  return j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace

std::filesystem::path journal_path_for(const std::filesystem::path& report_path) {
  std::filesystem::path path = report_path;
  if (path.extension() == ".json") return path.replace_extension(".journal");
  path += ".journal";
  return path;
}

bool is_journal_path(const std::filesystem::path& path) {
  std::string extension = path.extension().string();
  for (char& c : extension) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return extension == ".journal";
}

JournalWriter::~JournalWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void JournalWriter::flush() noexcept {
  if (!unflushed_.exchange(false)) return;
  try {
    std::lock_guard<std::mutex> hold(flush_mutex_);
    const int fd = fd_.load();
    if (fd >= 0 && ::fdatasync(fd) != 0) flush_errno_.store(errno);
  } catch (...) {  // std::system_error from the mutex: the next flush tries again
    unflushed_.store(true);
  }
}

Status JournalWriter::fail(Status s) noexcept {
  off_ = true;
  try {
    error_ = s.message();
  } catch (...) {
  }
  return s;
}

Status JournalWriter::sync(const Report& report, std::span<const std::size_t> unsettled) noexcept {
  if (off_) return ok_status();
  const std::size_t count = report.ranges.size();
  auto is_unsettled = [&](std::size_t slot) {
    return std::find(unsettled.begin(), unsettled.end(), slot) != unsettled.end();
  };
  bool settled_since = false;
  for (std::size_t slot : unsettled_) settled_since = settled_since || (slot < count && !is_unsettled(slot));
  if (written_ >= count && !settled_since) return ok_status();
  try {
    std::string lines;
    const std::string header = header_line(report);
    if (header != header_) lines += header;
    for (std::size_t slot = written_; slot < count; ++slot) {
      const bool final = !is_unsettled(slot);
      lines += range_line(slot, report.ranges[slot], final);
      if (!final) unsettled_.insert(slot);
    }
    for (auto it = unsettled_.begin(); it != unsettled_.end();) {
      if (*it < written_ && *it < count && !is_unsettled(*it)) {
        lines += range_line(*it, report.ranges[*it], /*final=*/true);
        it = unsettled_.erase(it);
      } else {
        ++it;
      }
    }
    if (const int error = flush_errno_.load(); error != 0)
      return fail(errno_status(error, "cannot flush the journal to disk", path_));
    if (fd_ < 0) {
      fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC, 0600);
      if (fd_ < 0) return fail(errno_status(errno, "cannot create the journal", path_));
    }
    if (Status written = write_all(fd_, lines, path_); !written.ok()) return fail(std::move(written));
    unflushed_.store(true);
    written_ = count;
    header_ = header;
    return ok_status();
  } catch (const std::exception& e) {
    return fail(internal_error("cannot write the journal '" + path_.string() + "': " + e.what()));
  } catch (...) {
    return fail(internal_error("cannot write the journal '" + path_.string() + "'"));
  }
}

Status JournalWriter::remove() noexcept {
  off_ = true;
  if (fd_ < 0) return ok_status();
  try {
    std::lock_guard<std::mutex> hold(flush_mutex_);
    ::close(fd_.exchange(-1));
  } catch (...) {  // std::system_error from the mutex: close without it
    ::close(fd_.exchange(-1));
  }
  if (::unlink(path_.c_str()) != 0 && errno != ENOENT) return errno_status(errno, "cannot remove the journal", path_);
  return ok_status();
}

StatusOr<JournalContents> parse_report_journal(std::string_view text, std::string_view source) {
  const std::string where(source);
  try {
    JournalContents contents;
    bool have_header = false;
    std::map<std::size_t, std::pair<RangeRecord, bool>> slots;
    std::size_t line_number = 0;
    const std::string no_header = where + " is not a rangereplay journal: its first line is not a journal header";
    while (!text.empty()) {
      ++line_number;
      const std::size_t end = text.find('\n');
      const bool whole = end != std::string_view::npos;
      const std::string_view line = text.substr(0, whole ? end : text.size());
      text.remove_prefix(whole ? end + 1 : text.size());
      const bool last = text.empty();
      const std::string at = where + " line " + std::to_string(line_number);
      json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (j.is_discarded() || !whole) {
        // A kill during the last write leaves one torn line at the end: the
        // only line without its newline. A whole line that does not parse is
        // damage wherever it is.
        if (last && !whole && have_header) {
          contents.torn_last_line = true;
          break;
        }
        if (!have_header) return invalid_argument(no_header);
        return invalid_argument(at + " is not JSON: the journal is damaged; its first " +
                                std::to_string(line_number - 1) + " lines can still be read (head -n " +
                                std::to_string(line_number - 1) + " of it into a new .journal file)");
      }
      if (!j.is_object()) return invalid_argument(at + " is not a journal line (expected a header or range object)");
      if (j.contains("journal")) {
        if (j["journal"] != kJournalName || !j.contains("journal_version") || !j.contains("report"))
          return invalid_argument(at + " is not a rangereplay journal header");
        if (j["journal_version"] != kJournalVersion)
          return failed_precondition(where + " has journal_version " + j["journal_version"].dump() +
                                     ", but this rangereplay reads journal_version " + std::to_string(kJournalVersion) +
                                     ": read it with the rangereplay that wrote it");
        // Read in place: dumping it to text again would recurse once per
        // level of nesting.
        StatusOr<Report> header = report_from_json(j["report"], at);
        if (!header.ok()) return header.status();
        contents.report = std::move(*header);
        have_header = true;
        continue;
      }
      if (!have_header) return invalid_argument(no_header);
      if (!j.contains("slot") || !j["slot"].is_number_unsigned() || !j.contains("final") || !j["final"].is_boolean() ||
          !j.contains("range"))
        return invalid_argument(at + " is not a journal range line (expected slot, final and range)");
      RangeRecord record;
      try {
        from_json(j["range"], record);
      } catch (const std::exception& e) {
        return invalid_argument(at + " holds an invalid range: " + e.what());
      }
      slots[j["slot"].get<std::size_t>()] = {std::move(record), j["final"].get<bool>()};
    }
    if (!have_header) return invalid_argument(where + " is empty: it is not a rangereplay journal");
    Report& report = contents.report;
    report.ranges.clear();
    for (auto& [slot, entry] : slots) {
      RangeRecord& record = entry.first;
      if (entry.second) {
        ++contents.final_ranges;
      } else {
        ++contents.unsettled_ranges;
        const std::string detail =
            "the process ended before the range's counters were read (it was "
            "waiting for a batched or standing counter pass)";
        record.declined = true;
        record.decline_reason = std::string(decline_reason_name(DeclineReason::kProcessEnded));
        record.decline_detail = decline_report_detail(DeclineReason::kProcessEnded, detail);
        record.kernels.clear();
        record.range_metrics.clear();
        if (record.samples) record.samples->clear();
      }
      report.ranges.push_back(std::move(record));
    }
    // The budget's range sums are filled at exit (ProfilerTool::finish),
    // which this process never reached: a header holds them as 0.
    sum_range_times(report);
    report.errors.push_back(
        "the process ended before the profiler's exit handler ran (a signal, abort, _exit or a "
        "crash): this report was rebuilt from its journal, with " +
        std::to_string(contents.final_ranges) + " finished range" + (contents.final_ranges == 1 ? "" : "s") +
        "; a range in flight then is not in it" +
        (contents.torn_last_line ? std::string(", and the journal's last line, cut short by the end, was left out")
                                 : std::string()));
    return contents;
  } catch (const std::bad_alloc&) {
    return resource_exhausted("out of memory while reading " + where);
  } catch (const std::exception& e) {
    return invalid_argument(where + " is not a valid rangereplay journal: " + e.what());
  }
}

StatusOr<JournalContents> read_report_journal(const std::filesystem::path& path) {
  try {
    RR_ASSIGN_OR_RETURN(std::string text, read_text_file(path));
    return parse_report_journal(text, "journal '" + path.string() + "'");
  } catch (const std::exception& e) {
    return resource_exhausted(std::string("cannot read the journal: ") + e.what());
  }
}

}  // namespace rangereplay::report
