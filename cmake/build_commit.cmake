# Run at every build (cmake -P, the target rangereplay_build_commit of
# tools/cli): writes OUTPUT, a C++ source defining rangereplay::cli::build_commit()
# as the commit SOURCE_DIR is checked out at (12 hex digits, "-dirty" when
# tracked files differ from it), or "unknown" when SOURCE_DIR is not the top
# of a git checkout (a source archive) or git is missing. The file is
# rewritten only when the text changes, so an unchanged commit recompiles
# nothing.
#   cmake -DSOURCE_DIR=<dir> -DOUTPUT=<file.cpp> -P cmake/build_commit.cmake
set(commit unknown)
find_program(GIT_EXECUTABLE git)
if(GIT_EXECUTABLE)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} rev-parse --show-toplevel
    OUTPUT_VARIABLE top RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  # Only SOURCE_DIR's own checkout: an archive unpacked inside another
  # repository is not that repository's commit.
  if(rc EQUAL 0 AND top)
    file(REAL_PATH "${top}" top)
    file(REAL_PATH "${SOURCE_DIR}" source)
  endif()
  if(rc EQUAL 0 AND top STREQUAL source)
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} rev-parse --short=12 HEAD
      OUTPUT_VARIABLE head RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(rc EQUAL 0 AND head)
      set(commit ${head})
      execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} diff --quiet HEAD --
        RESULT_VARIABLE dirty OUTPUT_QUIET ERROR_QUIET)
      if(dirty EQUAL 1)
        string(APPEND commit "-dirty")
      endif()
    endif()
  endif()
endif()
set(text "// Generated at build time by cmake/build_commit.cmake: the commit of this build.
#include \"cli/build_info.h\"

namespace rangereplay::cli {

std::string_view build_commit() { return \"${commit}\"; }

}  // namespace rangereplay::cli
")
set(current "")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" current)
endif()
if(NOT current STREQUAL text)
  file(WRITE "${OUTPUT}" "${text}")
endif()
