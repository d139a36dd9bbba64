# The layer rules, enforced by the build from the one place they are written,
# the targets' target_link_libraries: scripts/check-layers.py reads the
# targets, their sources and their links from CMake's file API (the
# codemodel-v2 reply CMake writes into this build folder when it generates,
# answering the query written below) and the #include lines of their files,
# and fails with one line per include of a target not linked, naming the
# file, the include and the missing link. The target rangereplay_layers runs
# it when a source, a CMakeLists or the script changes;
# rangereplay_enforce_layers(<dir>...) makes every target defined in those
# directories depend on it, so no library builds past a violation.
find_package(Python3 REQUIRED COMPONENTS Interpreter)

# The query: CMake answers it at the end of every configure of this build
# folder (the first configure writes it and finds it only afterwards; the
# script then runs cmake once more itself).
file(WRITE ${CMAKE_BINARY_DIR}/.cmake/api/v1/query/codemodel-v2 "")

file(GLOB_RECURSE rangereplay_layer_sources CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/src/*.h ${PROJECT_SOURCE_DIR}/src/*.cpp ${PROJECT_SOURCE_DIR}/src/*.cu
  ${PROJECT_SOURCE_DIR}/src/*.cuh
  ${PROJECT_SOURCE_DIR}/tools/*.h ${PROJECT_SOURCE_DIR}/tools/*.cpp
  ${PROJECT_SOURCE_DIR}/tests/unit/*.h ${PROJECT_SOURCE_DIR}/tests/unit/*.cpp
  ${PROJECT_SOURCE_DIR}/tests/gpu/*.h ${PROJECT_SOURCE_DIR}/tests/gpu/*.cpp ${PROJECT_SOURCE_DIR}/tests/gpu/*.cu
  ${PROJECT_SOURCE_DIR}/tests/cupti_host/*.h ${PROJECT_SOURCE_DIR}/tests/cupti_host/*.cpp
  ${PROJECT_SOURCE_DIR}/tests/fuzz/*.h ${PROJECT_SOURCE_DIR}/tests/fuzz/*.cpp)
# The links: a changed CMakeLists reconfigures (a new reply) and reruns the check.
file(GLOB_RECURSE rangereplay_layer_cmake_files CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/src/CMakeLists.txt ${PROJECT_SOURCE_DIR}/tools/CMakeLists.txt
  ${PROJECT_SOURCE_DIR}/tests/CMakeLists.txt ${PROJECT_SOURCE_DIR}/bench/CMakeLists.txt
  ${PROJECT_SOURCE_DIR}/examples/CMakeLists.txt)
set(rangereplay_layers_stamp ${CMAKE_BINARY_DIR}/rangereplay_layers.stamp)
add_custom_command(OUTPUT ${rangereplay_layers_stamp}
  COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/scripts/check-layers.py --root ${PROJECT_SOURCE_DIR}
          --build ${CMAKE_BINARY_DIR} --stamp ${rangereplay_layers_stamp}
  DEPENDS ${PROJECT_SOURCE_DIR}/scripts/check-layers.py ${rangereplay_layer_sources}
          ${PROJECT_SOURCE_DIR}/CMakeLists.txt ${rangereplay_layer_cmake_files}
  COMMENT "Checking #include lines against the targets' links (scripts/check-layers.py)"
  VERBATIM)
add_custom_target(rangereplay_layers DEPENDS ${rangereplay_layers_stamp})

# Every build target defined directly in each directory (relative to the
# project's root) depends on rangereplay_layers.
function(rangereplay_enforce_layers)
  foreach(dir IN LISTS ARGN)
    get_property(targets DIRECTORY ${PROJECT_SOURCE_DIR}/${dir} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(target IN LISTS targets)
      add_dependencies(${target} rangereplay_layers)
    endforeach()
  endforeach()
endfunction()
