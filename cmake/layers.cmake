# The folder table of docs/architecture.md ("Folders"), enforced by the build:
# scripts/check-layers.py reads the #include lines of src/, tools/ and tests/
# against its table (LAYERS, the one place the table is written) and fails
# with one line per include across it, naming the file, the include and the
# rule. The target rangereplay_layers runs it when a source or the script
# changes; rangereplay_enforce_layers(<dir>...) makes every target defined in
# those directories depend on it, so no library builds past a violation.
find_package(Python3 REQUIRED COMPONENTS Interpreter)

file(GLOB_RECURSE rangereplay_layer_sources CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/src/*.h ${PROJECT_SOURCE_DIR}/src/*.cpp ${PROJECT_SOURCE_DIR}/src/*.cu
  ${PROJECT_SOURCE_DIR}/src/*.cuh
  ${PROJECT_SOURCE_DIR}/tools/*.h ${PROJECT_SOURCE_DIR}/tools/*.cpp
  ${PROJECT_SOURCE_DIR}/tests/unit/*.h ${PROJECT_SOURCE_DIR}/tests/unit/*.cpp
  ${PROJECT_SOURCE_DIR}/tests/gpu/*.h ${PROJECT_SOURCE_DIR}/tests/gpu/*.cpp ${PROJECT_SOURCE_DIR}/tests/gpu/*.cu
  ${PROJECT_SOURCE_DIR}/tests/cupti_host/*.h ${PROJECT_SOURCE_DIR}/tests/cupti_host/*.cpp
  ${PROJECT_SOURCE_DIR}/tests/fuzz/*.h ${PROJECT_SOURCE_DIR}/tests/fuzz/*.cpp)
set(rangereplay_layers_stamp ${CMAKE_BINARY_DIR}/rangereplay_layers.stamp)
add_custom_command(OUTPUT ${rangereplay_layers_stamp}
  COMMAND Python3::Interpreter ${PROJECT_SOURCE_DIR}/scripts/check-layers.py --root ${PROJECT_SOURCE_DIR}
          --stamp ${rangereplay_layers_stamp}
  DEPENDS ${PROJECT_SOURCE_DIR}/scripts/check-layers.py ${rangereplay_layer_sources}
  COMMENT "Checking #include lines against the folder table (scripts/check-layers.py)"
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
