# Used by cmake/install.cmake's install(CODE) rules, at install time: splits
# the debug information off the installed binaries (the GNU debuglink way,
# which gdb follows in any prefix).
#
# rangereplay_debug_file(<built binary> <debug file>)
#   Writes <debug file>, the DWARF and symbol tables of <built binary>
#   (objcopy --only-keep-debug), unless it is newer than the binary. Both
#   components make it from the build tree's binary, so the Runtime
#   component's debuglink checksum and the Debug component's file agree even
#   when only one of them is installed (cpack installs them separately).
# rangereplay_strip(<installed binary> <debug file>)
#   Strips the installed copy (objcopy --strip-debug --strip-unneeded: the
#   dynamic symbols, run path and CUDA fat binaries stay) and records the
#   debug file's name and checksum in it (.gnu_debuglink), for
#   <dir>/.debug/<name>.debug. Errors end the install with the command's
#   message.
set(RANGEREPLAY_OBJCOPY objcopy)

function(rangereplay_run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "splitting debug info: '${command}' failed (${rc}): ${err}; install binutils (objcopy)")
  endif()
endfunction()

function(rangereplay_debug_file binary debug_file)
  get_filename_component(dir "${debug_file}" DIRECTORY)
  file(MAKE_DIRECTORY "${dir}")
  # Two installs at once (cpack beside `cmake --install`) take turns; the
  # file is written aside and renamed, so a reader never sees half of it.
  file(LOCK "${debug_file}.lock" GUARD FUNCTION TIMEOUT 300 RESULT_VARIABLE locked)
  if(NOT locked EQUAL 0)
    message(FATAL_ERROR "splitting debug info: cannot lock ${debug_file}.lock (${locked}); is another install stuck?")
  endif()
  if(EXISTS "${debug_file}" AND "${debug_file}" IS_NEWER_THAN "${binary}")
    return()
  endif()
  rangereplay_run(${RANGEREPLAY_OBJCOPY} --only-keep-debug "${binary}" "${debug_file}.part")
  file(RENAME "${debug_file}.part" "${debug_file}")
endfunction()

function(rangereplay_strip installed debug_file)
  rangereplay_run(${RANGEREPLAY_OBJCOPY} --strip-debug --strip-unneeded --remove-section=.gnu_debuglink
                  "${installed}")
  rangereplay_run(${RANGEREPLAY_OBJCOPY} "--add-gnu-debuglink=${debug_file}" "${installed}")
endfunction()
