// The report journal: every range the injection library has finished, on
// disk as soon as it is finished, so a process that never reaches its exit
// handler (SIGTERM from a time limit, SIGKILL, abort, _exit, a crash) loses
// no finished range. The launcher, or `rangereplay report`, turns a journal
// into the report the process would have written.
//
// The file is JSON Lines, appended only, each line one object:
//   {"journal":"rangereplay","journal_version":1,"report":{...}}   a header
//   {"slot":3,"final":true,"range":{...}}                           a range
// A header holds the report (report_json.h) with its ranges left out (an
// empty "ranges" array); a later header replaces an earlier one's fields (the
// device, set-up times and errors are known only after the first range). A
// range line holds one RangeRecord for the report's ranges[slot]; a later
// line for the same slot replaces it. "final": false marks a record the tool
// will still complete (a deferred range of a batch, a range of the standing
// one-pass counter pass); if the process ends before that, the rebuilt
// report lists it declined process_ended.
//
// Each sync appends its lines with one write(2), so a kill leaves whole
// lines and at most one torn last line, which the reader drops; flush()
// then fdatasync(2)s the file (the tool calls it after releasing its lock, so
// no other application thread waits for the disk).
//
//   JournalWriter journal("out/report.42.journal");
//   journal.sync(report, /*unsettled=*/{});      // after each range ends
//   journal.flush();                             // then, outside the lock
//   ...
//   journal.remove();                            // once the report is written
//   RR_ASSIGN_OR_RETURN(Report back, read_report_journal("out/report.42.journal"));
//
// Thread-safety: JournalWriter's sync, remove and disable are called under
// one lock (the tool's); flush may run on any thread at the same time as
// them. The readers are pure functions.
#pragma once
#include <atomic>
#include <cstddef>
#include <filesystem>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <string_view>

#include "core/base/status.h"
#include "report/report_model.h"

namespace rangereplay::report {

/// The journal layout this build writes and reads.
inline constexpr int kJournalVersion = 1;

/// Where the journal of the report written at `report_path` goes: the same
/// path with ".journal" for its ".json" extension ("report.42.json" ->
/// "report.42.journal"), or ".journal" appended to any other name. Pure.
std::filesystem::path journal_path_for(const std::filesystem::path& report_path);

/// Whether `path` names a journal by its ending (".journal", any case). Pure.
bool is_journal_path(const std::filesystem::path& path);

/// Appends a report's finished ranges to a journal file.
///
/// The file is created at the first sync that has something to write, with
/// O_CREAT|O_EXCL|O_NOFOLLOW (mode 0600): an existing file or a planted
/// symbolic link at the path is an error, never followed or overwritten.
/// After the first error every call does nothing and returns ok: the report
/// is still written at exit; `error()` keeps the one-line cause.
class JournalWriter {
 public:
  explicit JournalWriter(std::filesystem::path path) : path_(std::move(path)) {}
  ~JournalWriter();
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;

  /// Writes what changed in `report` since the last sync: a header when the
  /// report's own fields changed and a range line follows, then each range
  /// slot not yet written (final unless its index is in `unsettled`), then a
  /// final line for each slot written unsettled before and settled now.
  /// Nothing (no system call) when no range is new or newly settled.
  /// Returns the first error (the file cannot be created or written: the
  /// path and strerror); after it the journal is off. Never throws.
  Status sync(const Report& report, std::span<const std::size_t> unsettled) noexcept;

  /// fdatasync(2)s what the syncs since the last flush wrote; nothing when
  /// they wrote nothing. A failure turns the journal off at the next sync,
  /// which returns it. Blocks as long as the file system takes; may run
  /// concurrently with sync and remove.
  void flush() noexcept;

  /// Closes and deletes the file (once the whole report is on disk) and
  /// turns the journal off. Waits for a flush in progress. Errors: the
  /// unlink's, naming the path.
  Status remove() noexcept;

  /// Turns the journal off without touching the file (a forked child's copy).
  void disable() noexcept { off_ = true; }

  const std::filesystem::path& path() const { return path_; }
  /// Slots written so far (final or not).
  std::size_t slots_written() const { return written_; }
  /// The first error, empty when none.
  const std::string& error() const { return error_; }

 private:
  Status fail(Status s) noexcept;
  std::filesystem::path path_;
  std::atomic<int> fd_{-1};
  std::atomic<bool> unflushed_{false};
  std::atomic<int> flush_errno_{0};  // fdatasync's errno, 0 when it succeeded
  std::mutex flush_mutex_;           // held by flush across fdatasync, by remove across close
  bool off_ = false;
  std::size_t written_ = 0;          // slots [0, written_) have a line
  std::set<std::size_t> unsettled_;  // slots whose last line is not final
  std::string header_;               // the last header line written
  std::string error_;
};

/// What a journal held: the rebuilt report and how it was read.
struct JournalContents {
  Report report;
  std::size_t final_ranges = 0;      // ranges whose record was final
  std::size_t unsettled_ranges = 0;  // ranges declined process_ended
  bool torn_last_line = false;       // a last line without its end (dropped)
};

/// Parses journal text. The ranges are the slots in order (a slot with no
/// line is left out); an unsettled slot is declined process_ended, with its
/// recorded name and index kept. `report.errors` gets one line saying the
/// report was rebuilt from the journal and how many ranges it holds. The
/// time budget's range sums are filled from the ranges (sum_range_times), as
/// the tool does at exit.
/// Errors (never throws): kInvalidArgument when the first line is not a
/// journal header, or a line before the last is not JSON or not a header or
/// range line (the message names `source` and the line number);
/// kFailedPrecondition for another journal_version or report schema_version.
StatusOr<JournalContents> parse_report_journal(std::string_view text, std::string_view source = "journal");

/// read_text_file(path) then parse_report_journal; errors as there, each
/// naming `path`.
StatusOr<JournalContents> read_report_journal(const std::filesystem::path& path);

}  // namespace rangereplay::report
