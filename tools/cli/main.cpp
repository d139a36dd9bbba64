// The `rangereplay` launcher's entry point; everything else is in launcher.cpp
// (a library, so the unit tests reach it).
#include <string>
#include <vector>

#include "cli/launcher.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv, argv + argc);
  return rangereplay::cli::run_launcher(args);
}
