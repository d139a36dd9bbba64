#include "report/demangle.h"

#include <gtest/gtest.h>

namespace rangereplay::report {
namespace {

TEST(Demangle, mangled_kernel_names_read_as_cpp) {
  EXPECT_EQ(demangle("_Z6kernelPfi"), "kernel(float*, int)");
  EXPECT_EQ(demangle("_Z3addIfLi2EEvPKfPf"), "void add<float, 2>(float const*, float*)");
}

TEST(Demangle, names_that_are_not_mangled_come_back_unchanged) {
  EXPECT_EQ(demangle(""), "");
  EXPECT_EQ(demangle("f"), "f");  // __cxa_demangle alone would say "float"
  EXPECT_EQ(demangle("i"), "i");
  EXPECT_EQ(demangle("vector_add_kernel"), "vector_add_kernel");
  EXPECT_EQ(demangle("_Z"), "_Z");
}

TEST(Demangle, malformed_mangled_names_come_back_unchanged) {
  EXPECT_EQ(demangle("_Z999x"), "_Z999x");  // a name length past the end
  EXPECT_EQ(demangle("_Z6kernelPf!"), "_Z6kernelPf!");
}

}  // namespace
}  // namespace rangereplay::report
