// Fixture of tests/scripts/test_long_functions.py: the functions below have
// known lengths (name line to closing brace), and the comments, strings and
// preprocessor lines hold braces that are not code. The layout is what the test
// measures, so clang-format leaves it as it is.
// clang-format off
#include <string>
#define OPEN_BRACE {
#define MULTI_LINE(x) \
  do {                \
  } while (0)

namespace outer {
namespace {

/* A comment with a body that is not one: int fake() { */
int three_lines(int a) {
  return a + 1;
}

}  // namespace

const char* kRaw = R"x(int in_raw_string() { )x";
const int kTable[] = {1, 2, 3};

class Widget : public std::string {
 public:
  Widget(int a, int b) : a_{a}, b_(b) {
    // "}" in a comment
    a_ += b_;
  }
  int inline_member() const { return a_; }
  ~Widget() {
  }

 private:
  int a_;
  int b_;
};

template <typename T>
auto trailing(T t) -> decltype(t + 1) {
  auto lambda = [&](int x) {
    return x + '{';
  };
  const std::string s = "}{";
  return t + lambda(1);
}

}  // namespace outer

int outer::qualified_nine(int x) noexcept {
  if (x > 0) {
    x = 1;
  }
  while (x < 0) {
    x++;
  }
  return x;
}

std::function<int()> returns_a_function(int x) {
  return [x] { return x; };
}

bool operator<(const Point& a, const Point& b) {
  return a.x < b.x;
}

std::map<int, std::vector<int>> after_nested_templates() {
  return {};
}
